import { OR_SEPARATOR } from './config.ts';

/**
 * WebArena's string comparisons (`StringEvaluator` in `evaluation_harness/evaluators.py`), as pure
 * functions shared by string_match and program_html.
 */

/**
 * WebArena's `clean_answer`: trim, drop one pair of surrounding single or double quotes, lowercase.
 * Both sides of every comparison go through it.
 */
export function cleanAnswer(answer: string): string {
  let text = answer.trim();
  if (
    (text.startsWith("'") && text.endsWith("'")) ||
    (text.startsWith('"') && text.endsWith('"'))
  ) {
    text = text.slice(1, -1);
  }
  return text.toLowerCase();
}

/** WebArena's `exact_match`: equal after {@link cleanAnswer}. */
export function exactMatch(reference: string, prediction: string): boolean {
  return cleanAnswer(prediction) === cleanAnswer(reference);
}

/**
 * Words and punctuation marks, close to NLTK's `word_tokenize` for the cases WebArena uses it on
 * (a one-character reference such as `0` must be a whole token of the answer, not a digit of `10`):
 * runs of letters and digits with inner `.`/`,` (`1,000.5`) stay one token, every other
 * non-space character is its own token.
 */
export function wordTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+(?:[.,][\p{L}\p{N}_]+)*|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/**
 * WebArena's `must_include`: the cleaned reference is a substring of the cleaned prediction. With
 * `tokenize` (WebArena sets it when the reference list has one entry) a one-character reference
 * must be a whole token instead, so `0` is not found in `10`.
 */
export function mustInclude(reference: string, prediction: string, tokenize = false): boolean {
  const ref = cleanAnswer(reference);
  const pred = cleanAnswer(prediction);
  if (tokenize && ref.length === 1 && wordTokens(ref).length === 1) {
    return wordTokens(pred).includes(ref);
  }
  return pred.includes(ref);
}

/** The alternatives of a reference entry joined by ` |OR| ` (one entry when there are none). */
export function alternatives(reference: string): string[] {
  return reference.split(OR_SEPARATOR);
}

/**
 * One `must_include` entry: any of its ` |OR| ` alternatives is included. WebArena splits
 * alternatives in program_html; WebArena-Lite's string_match splits them too, and no WebArena
 * string_match reference contains the separator, so splitting everywhere changes no verdict.
 */
export function mustIncludeAny(reference: string, prediction: string, tokenize = false): boolean {
  return alternatives(reference).some((alt) => mustInclude(alt, prediction, tokenize));
}

/**
 * WebArena-Lite's `must_exclude`: the cleaned reference does not occur in the cleaned prediction;
 * a one-word reference only as a whole token (so excluding `no` does not reject `nothing`).
 */
export function mustExclude(reference: string, prediction: string): boolean {
  const ref = cleanAnswer(reference);
  const pred = cleanAnswer(prediction);
  if (wordTokens(ref).length === 1) return !wordTokens(pred).includes(ref);
  return !pred.includes(ref);
}
