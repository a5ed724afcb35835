import { memoize } from './memo.ts';

/** Small text utilities: words, budgets and prices in instructions and pages, action context. */

const STOPWORDS = new Set(
  (
    'a an and are as at be but by for from has have i in is it its looking me my need of on or ' +
    'that the this to under want was were what which with would like find please price lower ' +
    'than dollars dollar less some get buy show can you am looking also should'
  ).split(' '),
);

/**
 * Lower-cased words and numbers (a decimal point kept inside numbers, e.g. `40.00`). Remembered
 * for short texts (features and experience models split the same labels and lines over and over),
 * so the array is shared: read only.
 */
export function words(text: string): readonly string[] {
  return text.length <= MEMO_TEXT ? rememberedWords(text) : splitWords(text);
}

/** {@link words} without stopwords: the words that carry a request's content. Read only. */
export function contentWords(text: string): readonly string[] {
  return text.length <= MEMO_TEXT ? rememberedContent(text) : splitContent(text);
}

/** Texts up to this length have their words remembered (longer ones rarely recur whole). */
const MEMO_TEXT = 2_000;
const splitWords = (text: string): string[] =>
  text.toLowerCase().match(/[a-z0-9]+(?:\.[0-9]+)?/g) ?? [];
const splitContent = (text: string): string[] => words(text).filter((w) => !STOPWORDS.has(w));
const rememberedWords = memoize((text) => Object.freeze(splitWords(text)));
const rememberedContent = memoize((text) => Object.freeze(splitContent(text)));

/** A budget stated in an instruction ("lower than 40.00 dollars", "under 30 dollars"). */
export function budgetOf(instruction: string): number | undefined {
  const match = /(\d+(?:\.\d+)?)\s*dollars?/i.exec(instruction);
  return match ? Number(match[1]) : undefined;
}

/** The first price (`$12.99`) in a text. */
export function priceIn(text: string): number | undefined {
  const match = /\$\s?(\d+(?:\.\d+)?)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/**
 * The text an action refers to on the page: for `click[label]`, what follows `[label]` up to the
 * next button (a result's title and price after its `[ASIN]`); empty when the label is not shown.
 */
export function actionContext(action: string, observationText: string): string {
  const label = /\[(.*)\]\s*$/s.exec(action)?.[1];
  if (!label) return '';
  const at = observationText.toLowerCase().indexOf(`[${label.toLowerCase()}]`);
  if (at < 0) return '';
  const rest = observationText.slice(at + label.length + 2);
  const next = rest.indexOf('[');
  return (next < 0 ? rest : rest.slice(0, next)).slice(0, 300).trim();
}
