import { contentWords } from '../../core/text.ts';

/** Consecutive pairs of `words`, as `a b`. */
export function bigramsOf(words: readonly string[]): Set<string> {
  return new Set(words.slice(1).map((w, i) => `${words[i]} ${w}`));
}

/** Share of `wanted` that `text`'s content words contain. */
export function coverage(wanted: ReadonlySet<string>, text: string): number {
  if (wanted.size === 0) return 0;
  const have = new Set(contentWords(text));
  let n = 0;
  for (const w of wanted) if (have.has(w)) n++;
  return n / wanted.size;
}

/** Share of the word pairs `bigrams` that `text`'s content words contain in order. */
export function pairCoverage(bigrams: ReadonlySet<string>, text: string): number {
  if (bigrams.size === 0) return 0;
  const pairs = bigramsOf(contentWords(text));
  let n = 0;
  for (const b of bigrams) if (pairs.has(b)) n++;
  return n / bigrams.size;
}
