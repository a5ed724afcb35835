import { memoize } from '../../core/memo.ts';

/**
 * The generic experience model's view of text: tokens (words and single punctuation marks, with
 * their offsets), lines, value-free shapes, and substitution of values. Nothing here knows a
 * format: JSON, bracketed pages, prose and accessibility trees are all token streams.
 */

/** A word (letters and digits, joined by `-_.'/@` inside) or one punctuation mark. */
export interface Token {
  text: string;
  start: number;
  end: number;
  word: boolean;
}

const TOKEN = /[\p{L}\p{N}]+(?:[-_.'/@][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;

/**
 * The tokens of `text`, in order; whitespace is dropped. Remembered for the last texts read (the
 * same pages are read again and again): callers must not change the array.
 */
export const tokenize: (text: string) => readonly Token[] = memoize(tokenizeText, 2000);

function tokenizeText(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index as number;
    tokens.push({
      text: m[0],
      start,
      end: start + m[0].length,
      word: /[\p{L}\p{N}]/u.test(m[0]),
    });
  }
  return tokens;
}

/** Lower-cased word tokens of `text`. */
export function wordsOf(text: string): string[] {
  return tokenize(text)
    .filter((t) => t.word)
    .map((t) => t.text.toLowerCase());
}

/**
 * A token with its digits masked (`O-2349` → `o-9`, `157.85` → `9.9`), lower-cased: what stays of
 * an identifier or a number when its value is set aside.
 */
export function maskDigits(token: string): string {
  return /\d/.test(token) ? token.toLowerCase().replace(/\d+/g, '9') : token.toLowerCase();
}

/** True for one token that names one thing: letters and digits together (`C-1234`, `b0x1`). */
export function isIdLike(token: string): boolean {
  return /^\S+$/.test(token) && /\d/.test(token) && /\p{L}/u.test(token);
}

/**
 * The key of a line: its label, the tokens up to the first punctuation after a word, or its first
 * two words (`name: Anna` → `name :`, `You are in the hall.` → `you are`), digits masked. Lines
 * with one key play one part on a page (a field, a list, a header) whatever their values.
 */
export function lineKey(line: string): string {
  return lineParts(line).key;
}

/** A line's key (see `lineKey`) and the tokens after it: what the field, list or header holds. */
export function lineParts(line: string): { key: string; rest: readonly Token[] } {
  const tokens = tokenize(line);
  const key: string[] = [];
  let words = 0;
  for (const t of tokens) {
    key.push(maskDigits(t.text));
    if (t.word) words++;
    else if (words > 0) break;
    if (words >= 2) break;
  }
  return { key: key.join(' '), rest: tokens.slice(key.length) };
}

/**
 * The shape of a value: words as `w`, tokens with digits digit-masked, punctuation as it is
 * (`Anna Berg` → `w w`, `X-1234` → `x-9`). A slot's listed values have few shapes.
 */
export const valueShape: (value: string) => string = memoize((value) =>
  tokenize(value)
    .map((t) => (/\d/.test(t.text) ? maskDigits(t.text) : t.word ? 'w' : t.text))
    .join(' '),
);

/**
 * A text's lines grouped by key (the distinct lines of one key joined in order: an answer that
 * repeats a line the page shows again counts it once); keyless lines left out.
 */
export function linesByKey(text: string): Map<string, string> {
  const byKey = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const key = lineKey(line);
    if (key.length === 0) continue;
    const known = byKey.get(key);
    if (known === undefined) byKey.set(key, [line]);
    else if (!known.includes(line)) known.push(line);
  }
  return new Map([...byKey].map(([key, lines]) => [key, lines.join('\n')]));
}

/** Line-level overlap: the share of `b`'s non-empty lines that `a` holds word for word. */
export function lineOverlap(a: string, b: string): number {
  const lines = b.split('\n').filter((l) => l.trim().length > 0);
  if (lines.length === 0) return 0;
  const have = new Set(a.split('\n'));
  return lines.filter((l) => have.has(l)).length / lines.length;
}

/** Clause ends: a list's separators and line ends. */
const CLAUSE_END = /[;|\n]/;
/** Words of a clause taken as features, at most, each side of the value. */
const CLAUSE_WORDS = 24;

/** The word tokens of the clause around token `p` of `text` (see {@link CLAUSE_END}). */
export function clauseOf(text: string, tokens: readonly Token[], p: number): Token[] {
  const out: Token[] = [];
  const between = (a: Token, b: Token) => CLAUSE_END.test(text.slice(a.end, b.start));
  for (let i = p, n = 0; i >= 0 && n < CLAUSE_WORDS; i--) {
    const t = tokens[i] as Token;
    if (t.text === ';' || t.text === '|') break;
    if (t.word) {
      out.push(t);
      n++;
    }
    const before = tokens[i - 1];
    if (before && between(before, t)) break;
  }
  for (let i = p + 1, n = 0; i < tokens.length && n < CLAUSE_WORDS; i++) {
    const t = tokens[i] as Token;
    const before = tokens[i - 1] as Token;
    if (t.text === ';' || t.text === '|' || between(before, t)) break;
    if (t.word) {
      out.push(t);
      n++;
    }
  }
  return out;
}

/** Where `value`'s tokens stand, in order, among `tokens`: the index of each first token. */
export function positionsOf(tokens: readonly Token[], value: string): number[] {
  return occurrences(
    tokens,
    tokenize(value).map((t) => t.text),
  );
}

/** Token positions where `wanted` (token texts) starts in `tokens`. */
export function occurrences(tokens: readonly Token[], wanted: readonly string[]): number[] {
  const out: number[] = [];
  if (wanted.length === 0) return out;
  for (let p = 0; p + wanted.length <= tokens.length; p++) {
    let k = 0;
    while (k < wanted.length && (tokens[p + k] as Token).text === wanted[k]) k++;
    if (k === wanted.length) out.push(p);
  }
  return out;
}

/** The lower-cased words of every clause of `text` that holds `value` (see {@link clauseOf}). */
export function clauseWords(text: string, value: string): Set<string> {
  const tokens = tokenize(text);
  const out = new Set<string>();
  for (const p of positionsOf(tokens, value))
    for (const t of clauseOf(text, tokens, p)) out.add(t.text.toLowerCase());
  return out;
}

/** Jaccard similarity of two sets. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}

/** True when `value` occurs in `text` as whole tokens (not inside a longer word). */
export function containsValue(text: string, value: string): boolean {
  if (value.length === 0) return false;
  let from = 0;
  for (;;) {
    const at = text.indexOf(value, from);
    if (at < 0) return false;
    if (isBoundary(text, at - 1) && isBoundary(text, at + value.length)) return true;
    from = at + 1;
  }
}

function isBoundary(text: string, i: number): boolean {
  return i < 0 || i >= text.length || !/[\p{L}\p{N}]/u.test(text[i] as string);
}

/**
 * `text` with every value of `mapping` replaced by its image, whole tokens only, longest values
 * first and in one pass (an image is never replaced again).
 */
export function substitute(text: string, mapping: ReadonlyMap<string, string>): string {
  if (mapping.size === 0) return text;
  let pattern = patterns.get(mapping);
  if (!pattern) {
    const keys = [...mapping.keys()]
      .filter((k) => k.length > 0)
      .sort((a, b) => b.length - a.length)
      .map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${keys.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
    patterns.set(mapping, pattern);
  }
  return text.replace(pattern, (m) => mapping.get(m) ?? m);
}

/** The compiled pattern of each mapping (mappings are not changed once they are applied). */
const patterns = new WeakMap<ReadonlyMap<string, string>, RegExp>();
