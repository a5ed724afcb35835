/**
 * How text from outside (a server's body, an error message it sent) is shown in our error
 * messages: one line, bounded, and inert. A server that answers garbage must not get a megabyte
 * or a terminal escape sequence into the line that reports it.
 */

/** Characters of outside text an error message shows, escapes included. */
export const EXCERPT_CHARS = 200;

/** Shown escaped: control characters (C0, DEL, C1) and U+FFFD, a byte that was not UTF-8. */
const UNPRINTABLE = /[\p{Cc}\uFFFD]/u;

/**
 * `text` in double quotes, fit for one line of an error message: runs of whitespace as one space,
 * unprintable characters escaped (`\x1b`; `\ufffd` for a byte that was not UTF-8), and past
 * {@link EXCERPT_CHARS} characters its start, `…` and its length after the quotes.
 */
export function quoteExcerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let shown = '';
  let taken = 0;
  for (const char of flat) {
    if (shown.length >= EXCERPT_CHARS) break;
    shown += UNPRINTABLE.test(char) ? escaped(char) : char;
    taken += char.length;
  }
  if (taken === flat.length) return `"${shown}"`;
  return `"${shown}…" (${text.length.toLocaleString('en-US')} characters)`;
}

function escaped(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
