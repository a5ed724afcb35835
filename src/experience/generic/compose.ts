/**
 * A next state composed from a real transition. Where the real step brought a new page, the page
 * is taken with its values swapped for this episode's. Where it changed the page in place (a
 * field set, an item taken) or went back to a page it had shown before, the next state is built
 * from this episode's own pages, line by line: a line the real step carried over from its state
 * is this episode's line of that kind from its state; a line it showed again from the earlier
 * page is this episode's line from its own visit of that page; a line it changed is this
 * episode's line with the same change made (see `mergeLine`); a line it brought is swapped in.
 */
import { lcs } from './align.ts';
import { mergeLine } from './merge.ts';
import { lineKey, lineOverlap, linesByKey, substitute } from './text.ts';
import type { EpisodeStep } from './value-mapping.ts';

/** Below this share of lines in common, a next state is a new page, not a changed one. */
const SAME_PAGE = 0.34;

/**
 * The text after this episode's step (`target`), composed from the real step `source` (whose
 * next text is `source.view.texts[source.now + 1]`) under `mapping` (source value → ours).
 */
export function composeNext(
  source: EpisodeStep,
  target: EpisodeStep,
  mapping: ReadonlyMap<string, string>,
  keeps: (key: string) => boolean = () => false,
): string {
  const texts = source.view.texts;
  const next = texts[source.now + 1] as string;
  let place = source.now;
  let best = lineOverlap(texts[source.now] as string, next);
  for (let i = source.now - 1; i >= 0; i--) {
    const overlap = lineOverlap(texts[i] as string, next);
    if (overlap > best) {
      best = overlap;
      place = i;
    }
  }
  const ourState = target.view.texts[target.now] as string;
  if (best < SAME_PAGE) return newPage(next, texts[source.now] as string, ourState, mapping, keeps);
  const ourPlace = place === source.now ? ourState : ourVisit(target, substitute(next, mapping));
  // A page shown again that this episode has not shown: as new to it as to a new page.
  if (ourPlace === undefined)
    return newPage(next, texts[source.now] as string, ourState, mapping, keeps);
  return recompose(
    {
      state: texts[source.now] as string,
      place: texts[place] as string,
      next,
    },
    { state: ourState, place: ourPlace },
    mapping,
  );
}

/**
 * A new page, its values swapped; but a line the real step carried over word for word from its
 * state, of a kind the action's template leaves as it is (`keeps`: what one holds, when one
 * moves), is this episode's line of that kind: it is about this episode, not the real one.
 */
function newPage(
  next: string,
  realState: string,
  ourState: string,
  mapping: ReadonlyMap<string, string>,
  keeps: (key: string) => boolean,
): string {
  const carried = new Set(realState.split('\n'));
  const ours = linesByKey(ourState);
  return next
    .split('\n')
    .map((line) => {
      const key = lineKey(line);
      // The last of ours of that kind (an answer may repeat one earlier on the page).
      const mine = ours.get(key)?.split('\n').at(-1);
      return mine !== undefined && carried.has(line) && keeps(key)
        ? mine
        : substitute(line, mapping);
    })
    .join('\n');
}

/**
 * This episode's earlier text of the page `next` shows again: the one sharing most lines with it
 * that the current state does not have (the lines that tell the page apart).
 */
function ourVisit(target: EpisodeStep, next: string): string | undefined {
  const lines = next.split('\n').filter((l) => l.trim().length > 0);
  const current = new Set((target.view.texts[target.now] as string).split('\n'));
  let found: string | undefined;
  let most = 0;
  for (let j = target.now - 1; j >= 0; j--) {
    const text = target.view.texts[j] as string;
    const have = new Set(text.split('\n'));
    const shared = lines.filter((l) => have.has(l) && !current.has(l)).length;
    if (shared > most) {
      most = shared;
      found = text;
    }
  }
  return found;
}

/** The next lines, each from where the real step took it (see the module's description). */
function recompose(
  real: { state: string; place: string; next: string },
  ours: { state: string; place: string },
  mapping: ReadonlyMap<string, string>,
): string {
  const n = real.next.split('\n');
  const s = real.state.split('\n');
  const p = real.place.split('\n');
  const ourS = ours.state.split('\n');
  const ourP = ours.place.split('\n');
  const fromState = counterparts(s, ourS);
  const fromPlace = counterparts(p, ourP);
  const keptFromPlace = new Map(lcs(p, n).map(([i, k]) => [k, i]));
  const matchedOurs = new Set(fromPlace.values());
  const brought = new Set<string>();
  const out: string[] = [];
  let walked = 0;
  const flushOwn = (upTo: number) => {
    for (; walked < upTo; walked++) {
      const own = ourP[walked] as string;
      if (!matchedOurs.has(walked) && !brought.has(own)) out.push(own);
    }
  };
  const replaced = new Set(
    p.map((_, i) => i).filter((i) => ![...keptFromPlace.values()].includes(i)),
  );
  // Ours of a line the real state had word for word: the counterpart of its kind of one of its
  // copies (an answer may repeat a line the page shows below: `You carry …` twice).
  const ourStateLine = (line: string): number | undefined => {
    const key = lineKey(line);
    for (let i = 0; i < s.length; i++) {
      if (s[i] !== line) continue;
      const j = fromState.get(i);
      if (j !== undefined && lineKey(ourS[j] as string) === key) return j;
    }
    return undefined;
  };
  n.forEach((line, k) => {
    const stateLine = ourStateLine(line);
    if (stateLine !== undefined && real.state !== real.place) {
      out.push(ourS[stateLine] as string);
      return;
    }
    const i = keptFromPlace.get(k);
    if (i !== undefined) {
      // A line the real step left as it was: ours of its kind, or none when ours has none.
      const placeLine = fromPlace.get(i);
      if (placeLine === undefined) return;
      flushOwn(placeLine);
      out.push(ourP[placeLine] as string);
      walked = Math.max(walked, placeLine + 1);
      return;
    }
    // A line the real state had word for word, shown again elsewhere (an answer that repeats a
    // line of the page, such as a list of what one holds): ours of its kind, not theirs.
    if (stateLine !== undefined) {
      const mine = ourS[stateLine] as string;
      brought.add(mine);
      out.push(mine);
      return;
    }
    const made = changedLine(line, p, replaced, ourP, fromPlace, mapping);
    brought.add(made);
    out.push(made);
  });
  flushOwn(ourP.length);
  return out.join('\n');
}

/**
 * A line the real step changed or brought: when it replaced a line of its kind (same key) that
 * ours has a counterpart of, ours with the same change; else the line, swapped.
 */
function changedLine(
  line: string,
  before: readonly string[],
  replaced: ReadonlySet<number>,
  ours: readonly string[],
  counterpart: ReadonlyMap<number, number>,
  mapping: ReadonlyMap<string, string>,
): string {
  const key = lineKey(line);
  const old = before.findIndex(
    (l, i) => replaced.has(i) && lineKey(l) === key && counterpart.has(i),
  );
  if (old < 0 || key.length === 0) return substitute(line, mapping);
  const mine = ours[counterpart.get(old) as number] as string;
  return mergeLine(substitute(before[old] as string, mapping), substitute(line, mapping), mine);
}

/**
 * Line i of `theirs` → the line of `ours` standing in its place: lines of one key in order, then
 * the lines left between two such pairs, in order.
 */
function counterparts(theirs: readonly string[], ours: readonly string[]): Map<number, number> {
  const pairs = new Map<number, number>();
  let i = 0;
  let j = 0;
  const anchors = lcs(
    theirs.map((l) => lineKey(l) || l),
    ours.map((l) => lineKey(l) || l),
  );
  for (const [a, b] of [...anchors, [theirs.length, ours.length] as [number, number]]) {
    for (let k = 0; i + k < a && j + k < b; k++) pairs.set(i + k, j + k);
    if (a < theirs.length) pairs.set(a, b);
    i = a + 1;
    j = b + 1;
  }
  return pairs;
}
