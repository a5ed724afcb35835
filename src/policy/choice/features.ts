import { actionContext, budgetOf, contentWords, priceIn, words } from '../../core/text.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';

/** Sizes of the feature vectors. Derived once; the network's input layer uses them. */
export interface FeatureSizes {
  /** Hash buckets for the words of an action and of what it points at. */
  actionBuckets: number;
  /** Hash buckets for the page (the observation's first lines). */
  stateBuckets: number;
}

export const DEFAULT_FEATURE_SIZES: FeatureSizes = { actionBuckets: 128, stateBuckets: 64 };

/** Hand-made scalar features of an action; see {@link actionFeatures}. */
export const ACTION_SCALARS = 9;
/** Hand-made scalar features of a state; see {@link stateFeatures}. */
export const STATE_SCALARS = 4;

export const actionFeatureSize = (s: FeatureSizes) => s.actionBuckets + ACTION_SCALARS;
export const stateFeatureSize = (s: FeatureSizes) => s.stateBuckets + STATE_SCALARS;

/** What the policy sees at one decision. */
export interface Decision {
  observation: Observation;
  /** Actions taken so far in the episode, oldest first. */
  history: readonly string[];
}

/**
 * Features of the state: the page kind (hashed words of its first two lines, e.g. `Page 1 (Total
 * results: 50)` or `You arrive at countertop 1`), plus progress and the number of choices.
 */
export function stateFeatures(decision: Decision, sizes: FeatureSizes): Float32Array {
  const out = new Float32Array(stateFeatureSize(sizes));
  const head = decision.observation.text.split('\n').slice(0, 2).join(' ');
  addHashed(
    out,
    0,
    sizes.stateBuckets,
    words(head).map((w) => `p:${w}`),
    1,
  );
  const s = sizes.stateBuckets;
  out[s] = Math.min(1, decision.history.length / 20);
  out[s + 1] = Math.min(1, (decision.observation.actions?.length ?? 0) / 50);
  out[s + 2] = decision.history.length === 0 ? 1 : 0;
  out[s + 3] = 1;
  return out;
}

/**
 * Features of one candidate action: hashed words of the action and of the page text it points
 * at (a result's title and price), the action's verb crossed with the page kind, and scalars —
 * how much of it the instruction asks for, whether its price is within the instruction's
 * budget, whether it was taken before. Nothing here is specific to one env.
 */
export function actionFeatures(
  decision: Decision,
  action: string,
  sizes: FeatureSizes,
): Float32Array {
  const out = new Float32Array(actionFeatureSize(sizes));
  const { instruction, text } = decision.observation;
  const verb = /^\s*([a-z_]+)/i.exec(action)?.[1]?.toLowerCase() ?? '';
  const label = words(action.replace(/^\s*[a-z_]+\s*\[?/i, '').replace(/\]\s*$/, ''));
  const context = isActionTemplate(action) ? '' : actionContext(action, text);
  const pageKind = words(text.split('\n', 1)[0] ?? '')
    .slice(0, 3)
    .join('_');
  addHashed(
    out,
    0,
    sizes.actionBuckets,
    [`v:${verb}`, ...label.map((w) => `a:${w}`), `vp:${verb}|${pageKind}`],
    1,
  );
  addHashed(
    out,
    0,
    sizes.actionBuckets,
    words(context).map((w) => `c:${w}`),
    0.5,
  );

  const wanted = new Set(contentWords(instruction));
  const offered = contentWords(`${label.join(' ')} ${context}`);
  const matched = offered.filter((w) => wanted.has(w)).length;
  const budget = budgetOf(instruction);
  const price = priceIn(context);
  const taken = decision.history.filter((a) => a.toLowerCase() === action.toLowerCase()).length;
  const s = sizes.actionBuckets;
  out[s] = offered.length ? matched / offered.length : 0;
  out[s + 1] = wanted.size ? new Set(offered.filter((w) => wanted.has(w))).size / wanted.size : 0;
  out[s + 2] = budget !== undefined && price !== undefined ? (price <= budget ? 1 : -1) : 0;
  out[s + 3] = Math.min(3, taken) / 3;
  out[s + 4] = decision.history.at(-1)?.toLowerCase() === action.toLowerCase() ? 1 : 0;
  out[s + 5] = Math.log1p(offered.length) / 3;
  out[s + 6] = /\d/.test(label.join('')) && label.length === 1 ? 1 : 0;
  out[s + 7] = context.length > 0 ? 1 : 0;
  out[s + 8] = 1;
  return out;
}

/** Adds signed hashed counts of `tokens` into `out[offset, offset + buckets)`, scaled by 1/√n. */
function addHashed(
  out: Float32Array,
  offset: number,
  buckets: number,
  tokens: readonly string[],
  weight: number,
): void {
  if (tokens.length === 0) return;
  const scale = weight / Math.sqrt(tokens.length);
  for (const token of tokens) {
    const h = hash(token);
    const i = offset + ((h & 0x7fffffff) % buckets);
    out[i] = (out[i] as number) + (h >>> 31 ? -scale : scale);
  }
}

/** FNV-1a with a final avalanche, so similar tokens land in unrelated buckets. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
