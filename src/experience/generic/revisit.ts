import type { EpisodeView } from './episode.ts';
import { clauseWords, lineKey, linesByKey, wordsOf } from './text.ts';

/**
 * Going back: an action whose value stands in a clause of the state that names what an earlier
 * state of the same episode showed in a line the action changes (`go north` where the state says
 * `north to the cellar`, and an earlier state said `You are in the cellar.`) leads back to that
 * state. Nothing here knows what a place or a direction is: the names are the words in which the
 * earlier line differs from the state's line of the same key, and whether a template's steps
 * really lead back is counted on the buffer's real episodes (`countReturn`, `leadsBack`).
 */

/** The earlier state a step names: its index in the episode and the line key that named it. */
export interface NamedState {
  at: number;
  key: string;
}

/** How often a template's real steps named an earlier state, and how often they led back to it. */
export interface ReturnCount {
  named: number;
  back: number;
}

/** A template leads back when its steps that named an earlier state did so at least this often. */
const LEADS_BACK = 0.8;
/** … over at least this many steps. */
const MIN_NAMED = 3;

/** True when the template's real steps that named an earlier state mostly led back to it. */
export function leadsBack(count: ReturnCount): boolean {
  return count.named >= MIN_NAMED && count.back >= LEADS_BACK * count.named;
}

/**
 * The latest earlier state of the episode (before `now`) that the clauses holding `values` in
 * the state at `now` name: a line of a key the step changes (`changes`) whose words that the
 * state's line of that key lacks all stand in those clauses. Undefined when none does.
 */
export function namedEarlierState(
  view: EpisodeView,
  now: number,
  values: readonly string[],
  changes: (key: string) => boolean,
): NamedState | undefined {
  const state = view.texts[now] as string;
  const clause = new Set<string>();
  for (const value of values) for (const w of clauseWords(state, value)) clause.add(w);
  if (clause.size === 0) return undefined;
  const ours = linesByKey(state);
  for (let i = now - 1; i >= 0; i--) {
    if (view.invalid[i]) continue;
    for (const [key, lines] of linesByKey(view.texts[i] as string)) {
      const mine = ours.get(key);
      if (mine === undefined || mine === lines || !changes(key)) continue;
      const have = new Set(wordsOf(mine));
      const differing = wordsOf(lines).filter((w) => !have.has(w));
      if (differing.length > 0 && differing.every((w) => clause.has(w))) return { at: i, key };
    }
  }
  return undefined;
}

/**
 * Counts one real step: whether it named an earlier state, and whether its next state's line of
 * the naming key is the earlier state's.
 */
export function countReturn(
  count: ReturnCount,
  view: EpisodeView,
  t: number,
  values: readonly string[],
  changes: (key: string) => boolean,
): void {
  const named = namedEarlierState(view, t, values, changes);
  if (!named) return;
  count.named++;
  const next = linesByKey(view.texts[t + 1] as string).get(named.key);
  if (next === linesByKey(view.texts[named.at] as string).get(named.key)) count.back++;
}

/**
 * `text` with the lines of every key the step changes taken from the earlier state `earlier`,
 * where it has lines of that key: the page as the episode last saw it there, with what the step
 * leaves as it is (what one holds, the step's message) as `text` has it.
 */
export function backTo(
  text: string,
  earlier: string,
  changes: (key: string) => boolean,
  restore: (key: string) => boolean = () => false,
): string {
  const theirs = linesByKey(earlier);
  const out: string[] = [];
  const done = new Set<string>();
  for (const line of text.split('\n')) {
    const key = lineKey(line);
    const replacement = key.length > 0 && changes(key) ? theirs.get(key) : undefined;
    if (replacement === undefined) out.push(line);
    else if (!done.has(key)) {
      done.add(key);
      out.push(replacement);
    }
  }
  return restoreLines(out, earlier, restore).join('\n');
}

/**
 * `lines` with the lines of `earlier` whose key `restore` names and `lines` lacks put back, each
 * after the line its earlier predecessor's key has in `lines` (or first).
 */
function restoreLines(
  lines: readonly string[],
  earlier: string,
  restore: (key: string) => boolean,
): string[] {
  const out = [...lines];
  const present = new Set(out.map(lineKey));
  let previous: string | undefined;
  for (const line of earlier.split('\n')) {
    const key = lineKey(line);
    if (key.length > 0 && restore(key) && !present.has(key)) {
      const after = previous === undefined ? -1 : out.findLastIndex((l) => lineKey(l) === previous);
      out.splice(after + 1, 0, line);
      present.add(key);
    }
    if (key.length > 0) previous = key;
  }
  return out;
}
