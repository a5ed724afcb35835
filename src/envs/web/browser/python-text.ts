/**
 * How Python writes text, which is how WebArena's observation writes it: names through `repr()`,
 * property values through `str()`, blank names found with `str.strip()`. Written from Python's
 * documented rules, so a tree flattened here reads as WebArena's does.
 */

/**
 * Characters Python's `repr()` escapes besides backslash and quotes: those `str.isprintable()`
 * rejects, i.e. Unicode's "Other" (control, format, surrogate, private use, unassigned) and
 * "Separator" categories, except the ASCII space. So `\xa0`, `\xad` and `\u200b` are escaped.
 */
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/**
 * Python's whitespace for `str.strip()`, as code points (JavaScript's `trim()` differs: it strips
 * U+FEFF, and keeps U+001C–U+001F and U+0085).
 */
const PYTHON_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
  0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
  0x205f, 0x3000,
]);

/**
 * Python's `repr()` of a string, as WebArena prints names: single quotes unless the text holds a
 * single quote and no double quote; backslashes, that quote, and characters Python does not print
 * (line breaks, tabs, control characters, `\xa0`, `\xad`, `\u200b`, …) escaped as Python escapes them.
 */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  return `${quote}${escapeText(text, quote)}${quote}`;
}

/**
 * Python's `str()` of a value as WebArena prints a property (`True`/`False`/`None`, numbers,
 * text), except that text is escaped as {@link pythonRepr} escapes it, quotes aside: WebArena
 * prints it raw, so a value holding a line break would end the line mid-node and leave the rest
 * of it looking like a line of its own, without id or indent.
 */
export function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (typeof value === 'string') return escapeText(value, undefined);
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** Python's `not text.strip()`: empty or only whitespace as Python counts it. */
export function isPythonBlank(text: string): boolean {
  for (const char of text) if (!PYTHON_SPACE.has(char.codePointAt(0) as number)) return false;
  return true;
}

function escapeText(text: string, quote: string | undefined): string {
  let out = '';
  for (const char of text) {
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char !== ' ' && NOT_PRINTABLE.test(char)) out += pythonEscape(char);
    else out += char;
  }
  return out;
}

/** `\xhh`, `\uhhhh` or `\Uhhhhhhhh`, lower-case hex, by the code point's size, as Python writes it. */
function pythonEscape(char: string): string {
  const code = char.codePointAt(0) as number;
  const hex = code.toString(16);
  if (code < 0x100) return `\\x${hex.padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}
