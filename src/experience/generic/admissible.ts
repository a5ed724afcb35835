/**
 * Admissible actions derived from what an episode shows. From the buffer's states and their
 * listed actions the model learns, per action template and slot, where a slot's values stand in
 * a text (the tokens just before a value and the token just after: a wrapper, in the sense of
 * wrapper induction) and whether the current state alone lists them or everything the episode
 * showed does. A new state's actions are the templates filled with the values these rules read
 * from this state and this episode, never another episode's.
 */
import { memoize } from '../../core/memo.ts';
import { type ActionGrammar, fill } from './action-grammar.ts';
import type { EpisodeView } from './episode.ts';
import { maskDigits, occurrences, type Token, tokenize, valueShape } from './text.ts';

/** One real episode's views and the actions each of its observations listed. */
export interface ListedEpisode {
  view: EpisodeView;
  /** `lists[i]`: the actions listed with `view.texts[i]`; undefined where the env lists none. */
  lists: ReadonlyArray<readonly string[] | undefined>;
}

type Scope = 'state' | 'episode';

/** Where a slot's values stand: after `left` (tokens, digits masked), up to the token `right`. */
interface Wrapper {
  id: string;
  template: string;
  slot: number;
  left: string;
  /** Tokens in `left`. */
  length: number;
  right: string;
  scope: Scope;
}

/** Longest left context, in tokens. */
const MAX_LEFT = 5;
/** Longest value, in tokens. */
const MAX_VALUE = 8;
/** A wrapper is kept when at least this share of what it reads was listed … */
const MIN_PRECISION = 0.75;
/** … and it read at least this many listed values. */
const MIN_HITS = 2;
/** Observations learnt from, at most (whole episodes, evenly spread over the buffer). */
const MAX_OBSERVATIONS = 2000;
/** Actions one template may add to a state, at most. */
const MAX_PER_TEMPLATE = 200;
const END = '\u0003';
const SEP = '\u0001';

/** The learnt wrappers of every template's slots, and the shapes each slot's values have. */
export class AdmissibleRules {
  private constructor(
    /** Template → per slot, its wrappers. */
    private readonly templates: ReadonlyMap<string, Wrapper[][]>,
    /** Template slot → the shapes of the values it was listed with. */
    private readonly shapes: ReadonlyMap<string, ReadonlySet<string>>,
    /** Actions listed wherever their template was (see {@link AdmissibleRules.isConstant}). */
    private readonly constants: ReadonlySet<string>,
  ) {}

  /** Learns wrappers from real episodes whose observations list their actions. */
  static learn(grammar: ActionGrammar, episodes: readonly ListedEpisode[]): AdmissibleRules {
    const total = episodes.reduce((s, e) => s + e.lists.filter(Boolean).length, 0);
    const stride = Math.max(1, Math.ceil(total / MAX_OBSERVATIONS));
    const sample = episodes.filter((_, i) => i % stride === 0);
    const { wrappers, slots, shapes } = collectWrappers(grammar, sample);
    const scores = scoreWrappers(grammar, sample, wrappers, shapes);
    const precision = (w: Wrapper) => {
      const score = scores.get(w);
      return score && score.hits >= MIN_HITS ? score.hits / (score.hits + score.misses) : 0;
    };
    // Of a wrapper read over the state alone and over the whole episode, the one that reads
    // more listed values, less twice the unlisted ones, is kept.
    const gain = (w: Wrapper) => {
      const score = scores.get(w);
      return score ? score.hits - 2 * score.misses : 0;
    };
    const best = new Map<string, Wrapper>();
    for (const w of wrappers) {
      if (precision(w) < MIN_PRECISION) continue;
      const place = [w.template, w.slot, w.left, w.right].join(SEP.repeat(2));
      const other = best.get(place);
      if (!other || gain(w) > gain(other)) best.set(place, w);
    }
    const templates = new Map<string, Wrapper[][]>();
    for (const w of best.values()) {
      const count = slots.get(w.template) ?? w.slot + 1;
      const entry =
        templates.get(w.template) ?? Array.from({ length: count }, () => [] as Wrapper[]);
      entry[w.slot]?.push(w);
      templates.set(w.template, entry);
    }
    return new AdmissibleRules(templates, shapes, constantActions(grammar, episodes));
  }

  /**
   * True when the buffer's states listed `action` nearly wherever they listed an action of its
   * template (a form's fixed options, `set[nights=2]` of 1–7): a constant of the env, listed as
   * it is, never with its values swapped for a task's.
   */
  isConstant(action: string): boolean {
    return this.constants.has(action);
  }

  /** True when the template's listed actions are read from texts (every slot has a wrapper). */
  derives(template: string): boolean {
    return this.templates.get(template)?.every((w) => w.length > 0) === true;
  }

  /**
   * The actions the wrappers read from the episode's texts up to `now`, template by template.
   * With `templates` (the kinds of action a state like this one lists), other templates are
   * read from the state alone: what the episode showed earlier lists only the kinds it lists.
   */
  derive(view: EpisodeView, now: number, templates?: ReadonlySet<string>): string[] {
    const texts = view.texts.slice(0, now + 1);
    const out: string[] = [];
    for (const [template, wrappers] of this.templates) {
      if (!wrappers.every((w) => w.length > 0)) continue;
      const listed = templates === undefined || templates.has(template);
      if (!listed && wrappers.some((ws) => ws.every((w) => w.scope !== 'state'))) continue;
      const slotValues = wrappers.map((ws, slot) => {
        const shapes = this.shapes.get(slotKey(template, slot));
        const values = new Set<string>();
        for (const w of ws) {
          if (!listed && w.scope !== 'state') continue;
          for (let i = w.scope === 'state' ? now : 0; i <= now; i++)
            for (const v of this.read(w, texts[i] as string))
              if (!shapes || shapes.has(valueShape(v))) values.add(v);
        }
        return [...values];
      });
      let combos: string[][] = [[]];
      for (const values of slotValues)
        combos = combos.flatMap((c) => values.map((v) => [...c, v])).slice(0, MAX_PER_TEMPLATE);
      for (const c of combos) out.push(fill(template, c));
    }
    return out;
  }

  /** The values `w` reads from `text`. */
  private read(w: Wrapper, text: string): string[] {
    let byWrapper = reads.get(text);
    if (!byWrapper) {
      if (reads.size >= 2000) reads.clear();
      byWrapper = new Map();
      reads.set(text, byWrapper);
    }
    let values = byWrapper.get(w);
    if (!values) {
      values = readWrapper(w, readable(text));
      byWrapper.set(w, values);
    }
    return values;
  }
}

/** Values a wrapper read from a text, remembered for the texts of the last steps. */
const reads = new Map<string, Map<Wrapper, string[]>>();

/** A text with its tokens and their digit-masked forms. */
interface Readable {
  text: string;
  tokens: readonly Token[];
  masked: string[];
}

const readable: (text: string) => Readable = memoize((text) => {
  const tokens = tokenize(text);
  return { text, tokens, masked: tokens.map((t) => maskDigits(t.text)) };
}, 2000);

const slotKey = (template: string, slot: number) => `${template}${SEP}${slot}`;

/** The values each listed action's slots held: what the wrappers must read. */
function listedValues(grammar: ActionGrammar, list: readonly string[]): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const action of list) {
    if (/<[^<>]+>/.test(action)) continue;
    const { template, values: filled } = grammar.parse(action);
    filled.forEach((v, slot) => {
      const key = slotKey(template, slot);
      const set = values.get(key) ?? new Set<string>();
      set.add(v);
      values.set(key, set);
    });
  }
  return values;
}

/**
 * Every wrapper some listed value stands in (found in the state, else in the latest earlier text
 * that shows it), each template's slot count, and each slot's value shapes.
 */
function collectWrappers(grammar: ActionGrammar, episodes: readonly ListedEpisode[]) {
  const wrappers = new Map<string, Wrapper>();
  const slots = new Map<string, number>();
  const shapes = new Map<string, Set<string>>();
  for (const { view, lists } of episodes) {
    const texts = view.texts.map((t) => readable(t));
    lists.forEach((list, i) => {
      if (!list) return;
      for (const action of list) {
        if (/<[^<>]+>/.test(action)) continue;
        const { template, values } = grammar.parse(action);
        slots.set(template, values.length);
      }
      for (const [key, values] of listedValues(grammar, list)) {
        const [template, slot] = [
          key.slice(0, key.lastIndexOf(SEP)),
          Number(key.slice(key.lastIndexOf(SEP) + 1)),
        ];
        const slotShapes = shapes.get(key) ?? new Set<string>();
        shapes.set(key, slotShapes);
        for (const value of values) {
          slotShapes.add(valueShape(value));
          const wanted = tokenize(value).map((t) => t.text);
          for (let at = i; at >= 0; at--) {
            const text = texts[at] as Readable;
            const found = occurrences(text.tokens, wanted);
            for (const p of found) {
              const right = text.tokens[p + wanted.length]?.text ?? END;
              let left = '';
              for (let l = 1; l <= MAX_LEFT && l <= p; l++) {
                left =
                  l === 1 ? (text.masked[p - 1] as string) : `${text.masked[p - l]}${SEP}${left}`;
                const scopes: Scope[] = at === i ? ['state', 'episode'] : ['episode'];
                for (const scope of scopes) {
                  const id = [template, slot, left, right, scope].join(SEP.repeat(2));
                  if (!wrappers.has(id))
                    wrappers.set(id, { id, template, slot, left, length: l, right, scope });
                }
              }
            }
            if (found.length > 0) break;
          }
        }
      }
    });
  }
  return { wrappers: [...wrappers.values()], slots, shapes };
}

/** How many listed values each wrapper read (hits), and how many it read that were not (misses). */
function scoreWrappers(
  grammar: ActionGrammar,
  episodes: readonly ListedEpisode[],
  wrappers: readonly Wrapper[],
  shapes: ReadonlyMap<string, ReadonlySet<string>>,
): Map<Wrapper, { hits: number; misses: number }> {
  const byLeft = new Map<string, Wrapper[]>();
  for (const w of wrappers) push(byLeft, w.left, w);
  const scores = new Map<Wrapper, { hits: number; misses: number }>();
  for (const { view, lists } of episodes) {
    const read = new Map<Wrapper, Set<string>>();
    view.texts.forEach((raw, i) => {
      const text = readable(raw);
      const now = new Map<Wrapper, Set<string>>();
      for (let p = 1; p < text.tokens.length; p++) {
        let left = '';
        for (let l = 1; l <= MAX_LEFT && l <= p; l++) {
          left = l === 1 ? (text.masked[p - 1] as string) : `${text.masked[p - l]}${SEP}${left}`;
          for (const w of byLeft.get(left) ?? []) {
            const value = valueAt(text, p, w.right);
            if (value === undefined) continue;
            if (!shapes.get(slotKey(w.template, w.slot))?.has(valueShape(value))) continue;
            const set = now.get(w) ?? new Set<string>();
            set.add(value);
            now.set(w, set);
          }
        }
      }
      for (const [w, values] of now) {
        const all = read.get(w) ?? new Set<string>();
        for (const v of values) all.add(v);
        read.set(w, all);
      }
      const list = lists[i];
      if (!list) return;
      const truth = listedValues(grammar, list);
      for (const [w, episodeValues] of read) {
        const values = w.scope === 'state' ? now.get(w) : episodeValues;
        if (!values) continue;
        const listed = truth.get(slotKey(w.template, w.slot));
        const score = scores.get(w) ?? { hits: 0, misses: 0 };
        for (const v of values) {
          if (listed?.has(v)) score.hits++;
          else score.misses++;
        }
        scores.set(w, score);
      }
    });
  }
  return scores;
}

function readWrapper(w: Wrapper, text: Readable): string[] {
  const out: string[] = [];
  const left = w.left.split(SEP);
  for (let p = w.length; p < text.tokens.length; p++) {
    let match = true;
    for (let k = 0; k < w.length && match; k++) match = text.masked[p - w.length + k] === left[k];
    if (!match) continue;
    const value = valueAt(text, p, w.right);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** The value starting at token `p` and ending before the first `right` token, if short enough. */
function valueAt({ text, tokens }: Readable, p: number, right: string): string | undefined {
  const first = tokens[p];
  if (!first?.word) return undefined;
  for (let q = p + 1; q <= p + MAX_VALUE && q <= tokens.length; q++) {
    const next = tokens[q]?.text ?? END;
    if (next === right) {
      const last = tokens[q - 1] as Token;
      return last.word ? text.slice(first.start, last.end) : undefined;
    }
  }
  return undefined;
}

/** Appends `value` to the list `map` holds at `key`. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** States listing a template's actions, at least, for its constants to be told. */
const MIN_CONSTANT_LISTS = 10;
/** Share of those states that list an action for it to be a constant. */
const CONSTANT_SHARE = 0.9;

/** The actions listed in at least {@link CONSTANT_SHARE} of the states that list their template. */
function constantActions(grammar: ActionGrammar, episodes: readonly ListedEpisode[]): Set<string> {
  const byTemplate = new Map<string, number>();
  const byAction = new Map<string, number>();
  for (const episode of episodes)
    for (const list of episode.lists) {
      if (!list) continue;
      const templates = new Set<string>();
      for (const action of new Set(list)) {
        if (/<[^<>]+>/.test(action)) continue;
        templates.add(grammar.parse(action).template);
        byAction.set(action, (byAction.get(action) ?? 0) + 1);
      }
      for (const t of templates) byTemplate.set(t, (byTemplate.get(t) ?? 0) + 1);
    }
  const out = new Set<string>();
  for (const [action, n] of byAction) {
    const lists = byTemplate.get(grammar.parse(action).template) ?? 0;
    if (lists >= MIN_CONSTANT_LISTS && n >= CONSTANT_SHARE * lists) out.add(action);
  }
  return out;
}
