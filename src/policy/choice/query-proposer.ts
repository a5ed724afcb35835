import { contentWords } from '../../core/text.ts';

/**
 * Candidate texts for a free-text action template such as `search[<query>]`, built from the
 * instruction alone. The trainable policy scores them like any other action and learns which
 * kind of query pays off; the proposer only has to put a good one among them.
 */
export function proposeQueries(instruction: string, max = 5): string[] {
  const beforePrice =
    instruction.split(/,?\s*(?:and\s+)?(?:the\s+)?price\b|\bunder\s+\d|\bpriced\b/i)[0] ??
    instruction;
  const all = contentWords(beforePrice);
  const head = contentWords(beforePrice.split(/\b(?:in|with|that|which|for)\b|,/i)[0] ?? '');
  const candidates = [all, head, all.slice(-4), all.slice(0, 4), all.filter((w) => !/^\d/.test(w))]
    .map((ws) => ws.join(' '))
    .filter((q) => q.length > 0);
  return [...new Set(candidates)].slice(0, max);
}
