/**
 * Alignment of two texts of one shape (two answers of one tool, two pages of one kind): the
 * tokens they share anchor them, and what differs between two anchors is a value of one text
 * standing where the other has its own. Those pairs are how a real transition's values are
 * swapped for this episode's.
 */
import { lineKey, type Token, tokenize } from './text.ts';

/** Longest value (in tokens) a pair may have: longer differences are different content. */
const MAX_VALUE_TOKENS = 8;
/** Lines longer than this (in tokens) are not aligned token by token. */
const MAX_TOKENS = 1500;
/** Two lines are aligned when at least this share of their tokens is in common. */
const SIMILAR_LINES = 0.4;

/**
 * Pairs (value of `a`, value of `b`) standing in the same place of two texts: lines are paired
 * (equal lines anchor, differing lines pair by their keys, in order), and in each pair of similar
 * lines the differing runs between common tokens pair up, when both hold a word and at most
 * {@link MAX_VALUE_TOKENS} tokens. In order of appearance; a value of `a` is paired once.
 */
export function alignValues(a: string, b: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const [lineA, lineB] of pairedLines(a, b)) {
    const ta = tokenize(lineA);
    const tb = tokenize(lineB);
    if (ta.length > MAX_TOKENS || tb.length > MAX_TOKENS) continue;
    const anchors = lcs(
      ta.map((t) => t.text),
      tb.map((t) => t.text),
    );
    if ((2 * anchors.length) / (ta.length + tb.length) < SIMILAR_LINES) continue;
    for (const [ra, rb] of differingRuns(ta, tb, anchors)) {
      const va = spanText(lineA, ta, ra);
      const vb = spanText(lineB, tb, rb);
      if (va === undefined || vb === undefined || va === vb || seen.has(va)) continue;
      seen.add(va);
      pairs.push([va, vb]);
    }
  }
  return pairs;
}

/**
 * The lines of `a` and `b` that stand in the same place and differ: between lines the two share,
 * lines are paired by their keys (in order).
 */
function pairedLines(a: string, b: string): Array<[string, string]> {
  const la = a.split('\n');
  const lb = b.split('\n');
  const out: Array<[string, string]> = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj] of [...lcs(la, lb), [la.length, lb.length] as [number, number]]) {
    const blockA = la.slice(i, ai);
    const blockB = lb.slice(j, bj);
    for (const [x, y] of lcs(blockA.map(lineKey), blockB.map(lineKey)))
      out.push([blockA[x] as string, blockB[y] as string]);
    i = ai + 1;
    j = bj + 1;
  }
  return out;
}

/** A run of tokens [start, end). */
type Run = [number, number];

/** The runs of `a` and `b` between `anchors`, the pairs of a common token subsequence. */
function differingRuns(
  a: readonly Token[],
  b: readonly Token[],
  anchors: ReadonlyArray<[number, number]>,
): Array<[Run, Run]> {
  const runs: Array<[Run, Run]> = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj] of [...anchors, [a.length, b.length] as [number, number]]) {
    if (ai > i && bj > j) runs.push([[i, ai] as Run, [j, bj] as Run]);
    i = ai + 1;
    j = bj + 1;
  }
  return runs;
}

function spanText(text: string, tokens: readonly Token[], [start, end]: Run): string | undefined {
  if (end - start > MAX_VALUE_TOKENS) return undefined;
  const run = tokens.slice(start, end);
  if (!run.some((t) => t.word)) return undefined;
  // Punctuation at a run's edge belongs to the format, not the value.
  let first = 0;
  let last = run.length - 1;
  while (first <= last && !(run[first] as Token).word) first++;
  while (last >= first && !(run[last] as Token).word) last--;
  return text.slice((run[first] as Token).start, (run[last] as Token).end);
}

/**
 * Index pairs of a longest common subsequence of two sequences, in order (dynamic programming;
 * the sequences are short: one page or one tool answer).
 */
export function lcs<T>(a: readonly T[], b: readonly T[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const table = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] as number) + 1
          : Math.max(table[(i + 1) * width + j] as number, table[i * width + j + 1] as number);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((table[(i + 1) * width + j] as number) >= (table[i * width + j + 1] as number)) i++;
    else j++;
  }
  return pairs;
}
