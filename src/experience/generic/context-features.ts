/**
 * What a step's outcome may depend on, as a set of named binary features, and how much each one
 * tells about the outcome (information gain, learnt per action template from the buffer). The
 * generic model picks the real transition to compose from by these weighted features, so a step
 * is answered like the real steps whose circumstances mattered in the same way.
 */
import type { ActionGrammar } from './action-grammar.ts';
import type { EpisodeView } from './episode.ts';
import {
  clauseOf,
  containsValue,
  lineKey,
  lineParts,
  maskDigits,
  positionsOf,
  type Token,
  tokenize,
  wordsOf,
} from './text.ts';
import type { WordFrequency } from './word-frequency.ts';

/** Words of a text taken as features, at most. */
const MAX_WORDS = 160;
/** Words of one line taken as its line-kind features, at most (a field's value, a list's head). */
const WORDS_PER_LINE = 6;
/** How near (in tokens) two things stand to count as related. */
const NEAR = 6;

/**
 * The features of taking `action` at step `now` of an episode:
 * - `rt<j>:<share>` the share of the instruction's content words in that record (in quarters);
 * - `o<j>:<origin>` where slot j's value was shown (the state, earlier, the task, nowhere);
 *   `v<j>:<value>` the value itself, digits masked (a button's label, an id's form);
 * - `t<j>` slot j's value is in the instruction; `rep` the action was taken before;
 * - `prev:<template>` the previous action's template;
 * - `s:<word>` words of the state; `r<j>:<word>` words of the last earlier text showing slot j's
 *   value (its record);
 * - `li:<line key>` a line of the state holds a content word of the instruction;
 *   `k:<line key>|<word>` a word of a line of that kind (what a field holds: `nights :|not`);
 * - `w<j>:<word>` a word near slot j's value in the state (what the page says of it);
 *   `c<j>:<word>` a word of the clause that holds it (up to the nearest `;`, `|` or line end:
 *   the list entry it is part of, however long);
 * - `nt<j>` a content word of the instruction stands near slot j's value in the state;
 *   `near<j>:<k>` a word of slot j's value stands near slot k's value.
 */
export function contextFeatures(
  view: EpisodeView,
  now: number,
  action: string,
  grammar: ActionGrammar,
  taskWords: WordFrequency,
): Set<string> {
  const parsed = grammar.parse(action);
  const features = new Set<string>();
  const state = view.texts[now] ?? '';
  const tokens = tokenize(state);
  const content = new Set(taskWords.of(view.instruction));
  parsed.values.forEach((value, j) => {
    features.add(`o${j}:${view.origin(value, now)}`);
    features.add(`v${j}:${maskDigits(value)}`);
    if (containsValue(view.instruction, value)) features.add(`t${j}`);
    const record = view.lastShowing(value, now - 1);
    if (record !== undefined) {
      const text = view.texts[record] as string;
      addWords(features, `r${j}:`, text);
      const have = new Set(wordsOf(text));
      const share =
        content.size === 0 ? 0 : [...content].filter((w) => have.has(w)).length / content.size;
      features.add(`rt${j}:${Math.round(share * 4) / 4}`);
    }
  });
  if (view.tookBefore(action, now)) features.add('rep');
  const previous = now > 0 ? view.actions[now - 1] : undefined;
  if (previous !== undefined) features.add(`prev:${grammar.parse(previous).template}`);
  addWords(features, 's:', state, tokens);
  let lineWords = 0;
  for (const line of state.split('\n')) {
    if (tokenize(line).some((t) => t.word && content.has(t.text.toLowerCase())))
      features.add(`li:${lineKey(line)}`);
    const { key, rest } = lineParts(line);
    for (const t of rest.slice(0, WORDS_PER_LINE))
      if (t.word && lineWords++ < MAX_WORDS) features.add(`k:${key}|${maskDigits(t.text)}`);
  }
  const positions = parsed.values.map((v) => positionsOf(tokens, v));
  parsed.values.forEach((value, j) => {
    const near = (at: readonly number[], test: (t: Token) => boolean) =>
      at.some((p) => tokens.slice(Math.max(0, p - NEAR), p + NEAR).some((t) => t.word && test(t)));
    const at = positions[j] as number[];
    if (near(at, (t) => content.has(t.text.toLowerCase()) && !containsValue(value, t.text)))
      features.add(`nt${j}`);
    for (const p of at.slice(0, 4)) {
      for (const t of tokens.slice(Math.max(0, p - NEAR), p + NEAR))
        if (t.word) features.add(`w${j}:${maskDigits(t.text)}`);
      for (const t of clauseOf(state, tokens, p)) features.add(`c${j}:${maskDigits(t.text)}`);
    }
    const mine = new Set(
      tokenize(value)
        .filter((t) => t.word)
        .map((t) => t.text),
    );
    parsed.values.forEach((_, k) => {
      if (k !== j && near(positions[k] as number[], (t) => mine.has(t.text)))
        features.add(`near${j}:${k}`);
    });
  });
  return features;
}

function addWords(features: Set<string>, prefix: string, text: string, tokens = tokenize(text)) {
  let n = 0;
  for (const t of tokens) {
    if (!t.word) continue;
    const key = `${prefix}${maskDigits(t.text)}`;
    if (features.has(key)) continue;
    features.add(key);
    if (++n >= MAX_WORDS) return;
  }
}

/**
 * How much each feature tells about the label, in bits: H(label) − H(label | feature). Features
 * seen in fewer than two samples are left out.
 */
export function informationGain(
  samples: ReadonlyArray<{ features: ReadonlySet<string>; label: string }>,
): Map<string, number> {
  const n = samples.length;
  const labels = new Map<string, number>();
  const present = new Map<string, Map<string, number>>();
  for (const { features, label } of samples) {
    labels.set(label, (labels.get(label) ?? 0) + 1);
    for (const f of features) {
      const byLabel = present.get(f) ?? new Map<string, number>();
      byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
      present.set(f, byLabel);
    }
  }
  const base = entropy(labels.values(), n);
  const gains = new Map<string, number>();
  if (labels.size < 2) return gains;
  for (const [f, byLabel] of present) {
    let with_ = 0;
    for (const c of byLabel.values()) with_ += c;
    if (with_ < 2) continue;
    const without = [...labels].map(([label, c]) => c - (byLabel.get(label) ?? 0));
    const conditional =
      (with_ / n) * entropy(byLabel.values(), with_) +
      ((n - with_) / n) * entropy(without.values(), n - with_);
    const gain = base - conditional;
    if (gain > 1e-3) gains.set(f, gain);
  }
  return gains;
}

function entropy(counts: Iterable<number>, total: number): number {
  if (total <= 0) return 0;
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / total) * Math.log2(c / total);
  return h;
}

/**
 * How alike two steps' circumstances are: the weight of the features both have, less half the
 * weight of those only one has (2·both − ½·ours − ½·theirs, with each side's total weight).
 */
export function weightedAgreement(
  ours: ReadonlySet<string>,
  theirs: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
  totals: { ours: number; theirs: number } = {
    ours: totalWeight(ours, weights),
    theirs: totalWeight(theirs, weights),
  },
): number {
  let both = 0;
  const [small, large] = ours.size <= theirs.size ? [ours, theirs] : [theirs, ours];
  for (const f of small) if (large.has(f)) both += weights.get(f) ?? 0;
  return 2 * both - totals.ours / 2 - totals.theirs / 2;
}

/** The summed weight of a set of features. */
export function totalWeight(
  features: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
): number {
  let total = 0;
  for (const f of features) total += weights.get(f) ?? 0;
  return total;
}
