import type { Observation } from '../../core/types.ts';
import type { Decision } from './feature-set.ts';

/** A decision's candidates and their features, as a {@link DecisionMemo} keeps them. */
export interface Memoized {
  candidates: readonly string[];
  features: { actions: Float32Array; state: Float32Array };
}

/** Default bound of a {@link DecisionMemo}: 64 MiB of feature vectors and keys. */
const DEFAULT_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The candidates and features of decisions already met, looked up by everything a decision holds
 * (the observation, the actions taken and the env's replies to them), so the answer is exactly
 * what featurizing again would give. It pays where decisions recur: a rollout group's episodes of
 * one task all start alike and a confident policy repeats its choices (on the web sites, four in
 * ten synthetic training decisions had been met before), and there features cost more than the
 * network. Forgets everything once it holds `limitBytes` (cheaper than an LRU; the working set of
 * an iteration refills it).
 */
export class DecisionMemo<V extends Memoized = Memoized> {
  private readonly entries = new Map<string, V>();
  /** Every text a key names, by a number: keys stay short however long the pages are. */
  private readonly texts = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly limitBytes = DEFAULT_LIMIT_BYTES) {}

  /** The remembered candidates and features of `decision`, or what `compute` gives (then kept). */
  get(decision: Decision, compute: () => V): V {
    const key = this.key(decision);
    const known = this.entries.get(key);
    if (known) return known;
    const fresh = compute();
    this.bytes +=
      fresh.features.actions.byteLength +
      fresh.features.state.byteLength +
      2 * (key.length + fresh.candidates.reduce((n, c) => n + c.length, 0));
    this.entries.set(key, fresh);
    if (this.bytes > this.limitBytes) this.clear();
    return fresh;
  }

  /** Decisions remembered. */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.texts.clear();
    this.bytes = 0;
  }

  /**
   * A decision as one string of text numbers. Recorded decisions without the env's replies
   * (`observations` absent) key apart from an episode's first decision (`observations` empty).
   */
  private key({ observation, history, observations }: Decision): string {
    let key = `${observations === undefined ? 'n' : 'o'}${this.observationKey(observation)}`;
    history.forEach((action, i) => {
      const reply = observations?.[i];
      key += `|${this.number(action)}>${reply ? this.observationKey(reply) : '-'}`;
    });
    return key;
  }

  private observationKey({ instruction, text, actions }: Observation): string {
    const listed = actions ? this.number(JSON.stringify(actions)) : '-';
    return `${this.number(instruction)}.${this.number(text)}.${listed}`;
  }

  private number(text: string): number {
    let n = this.texts.get(text);
    if (n === undefined) {
      n = this.texts.size;
      this.texts.set(text, n);
      this.bytes += 2 * text.length;
    }
    return n;
  }
}
