/**
 * The correspondence between a real episode's values and this episode's: built from what stands
 * in the same place (the action's slots, the record each slot's value came from, the state, the
 * instruction), most reliable first. Applied to the real next state, it answers this episode's
 * step in the real step's shape: its ids, names and values in the places the real ones held.
 */
import type { ActionGrammar } from './action-grammar.ts';
import { alignValues } from './align.ts';
import type { EpisodeView } from './episode.ts';
import { containsValue, isIdLike, maskDigits, wordsOf } from './text.ts';
import type { WordFrequency } from './word-frequency.ts';

/** A step of an episode: its view and the index of the state. */
export interface EpisodeStep {
  view: EpisodeView;
  now: number;
}

/**
 * Source value → this episode's value, for a real step (`source`, taking `sourceAction`) used to
 * answer this episode's step (`target`, taking `action`), from, most reliable first: the
 * instructions as wholes, the action's slots, the records the slot values came from, the ids the
 * two episodes' earlier actions of one kind took and their records, the states and the
 * instructions aligned. Earlier sources win a conflict, one value of ours stands for one source
 * value only, and the loose alignments (states, instructions) neither map numbers alone, nor a
 * value this episode's state shows as itself, nor runs unlike as values (a list's worth onto one
 * thing); the alignments of records and states map no word of the env's vocabulary
 * (`vocabulary`: words most episodes show, such as a status), only the things
 * episodes are about.
 */
export function valueMapping(
  source: EpisodeStep,
  sourceAction: string,
  target: EpisodeStep,
  action: string,
  grammar: ActionGrammar,
  vocabulary: WordFrequency,
): Map<string, string> {
  const mapping = new Map<string, string>();
  const used = new Set<string>();
  const state = target.view.texts[target.now] as string;
  // A value both actions name is itself in both episodes: nothing holding it or held in it
  // stands for anything else, nor does anything else become it (`silver` of `take silver key`
  // does not become `brass`, nor `a silver key` `nothing`).
  const theirs = grammar.parse(sourceAction).values;
  const ours = grammar.parse(action).values;
  const shared = theirs.filter((v, j) => v === ours[j]);
  const overlaps = (a: string, b: string) => containsValue(a, b) || containsValue(b, a);
  const put = (from: string, to: string, loose: boolean) => {
    if (from === to || mapping.has(from) || used.has(to)) return;
    if (
      from !== source.view.instruction &&
      shared.some((v) => overlaps(v, from) || overlaps(v, to))
    )
      return;
    if (loose && (!/\p{L}/u.test(from) || containsValue(state, from) || unlike(from, to))) return;
    // An id stands for an id of the same form only.
    if ((isIdLike(from) || isIdLike(to)) && maskDigits(from) !== maskDigits(to)) return;
    mapping.set(from, to);
    used.add(to);
  };
  put(source.view.instruction, target.view.instruction, false);
  const slots: Array<[string, string]> = [];
  theirs.forEach((v, j) => {
    const mine = ours[j];
    if (mine === undefined) return;
    put(v, mine, false);
    slots.push([v, mine]);
  });
  const records = (pairs: ReadonlyArray<[string, string]>) => {
    for (const [v, mine] of pairs) {
      const a = source.view.lastShowing(v, source.now);
      const b = target.view.lastShowing(mine, target.now);
      if (a === undefined || b === undefined) continue;
      const record = recordOf(source.view.texts[a] as string, v);
      for (const [x, y] of alignValues(record, recordOf(target.view.texts[b] as string, mine)))
        if (vocabulary.of(x).length > 0) put(x, y, false);
    }
  };
  records(slots);
  const alike = valuesTakenAlike(source, target, grammar);
  for (const [x, y] of alike) put(x, y, false);
  records(alike);
  for (const [x, y] of alignValues(source.view.texts[source.now] as string, state))
    if (vocabulary.of(x).length > 0) put(x, y, true);
  for (const [x, y] of alignValues(source.view.instruction, target.view.instruction))
    put(x, y, true);
  return mapping;
}

/**
 * Values the two episodes' earlier actions of one template took in the same turn (the latest
 * of each, then the one before …): ids, and values both took from their own task.
 */
function valuesTakenAlike(
  source: EpisodeStep,
  target: EpisodeStep,
  grammar: ActionGrammar,
): Array<[string, string]> {
  const byTemplate = (view: EpisodeView, now: number) => {
    const taken = new Map<string, string[][]>();
    for (let i = now - 1; i >= 0; i--) {
      if (view.invalid[i]) continue;
      const { template, values } = grammar.parse(view.actions[i] as string);
      taken.set(template, [...(taken.get(template) ?? []), values]);
    }
    return taken;
  };
  const theirs = byTemplate(source.view, source.now);
  const ours = byTemplate(target.view, target.now);
  const pairs: Array<[string, string]> = [];
  for (const [template, taken] of theirs) {
    const mine = ours.get(template) ?? [];
    taken.forEach((values, turn) => {
      values.forEach((v, k) => {
        const y = mine[turn]?.[k];
        if (y === undefined || y === v) return;
        const ids = isIdLike(v) && isIdLike(y);
        const fromTasks =
          /\p{L}/u.test(v) &&
          containsValue(source.view.instruction, v) &&
          containsValue(target.view.instruction, y);
        if (ids || fromTasks) pairs.push([v, y]);
      });
    });
  }
  return pairs;
}

/**
 * Whether two loosely aligned runs are unlike as values: one holds a list's separator the other
 * lacks, or one is over twice as many words as the other (`a key and a map` is two things, not
 * one, whatever it stands beside).
 */
function unlike(a: string, b: string): boolean {
  const separators = (v: string) => (v.match(/[,;()[\]{}|]/g) ?? []).length;
  if (separators(a) !== separators(b)) return true;
  const [x, y] = [wordsOf(a).length, wordsOf(b).length].sort((m, n) => m - n) as [number, number];
  return y > 2 * Math.max(1, x);
}

/** The part of `text` about `value`: the line showing it. */
function recordOf(text: string, value: string): string {
  return text.split('\n').find((line) => containsValue(line, value)) ?? text;
}

/** The mapping of one instruction's values onto another's (how an initial state is adapted). */
export function instructionMapping(from: string, to: string): Map<string, string> {
  const mapping = new Map<string, string>();
  if (from === to) return mapping;
  mapping.set(from, to);
  const used = new Set<string>([to]);
  for (const [x, y] of alignValues(from, to)) {
    if (mapping.has(x) || used.has(y) || !/\p{L}/u.test(x)) continue;
    mapping.set(x, y);
    used.add(y);
  }
  return mapping;
}
