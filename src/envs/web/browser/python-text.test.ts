import { describe, expect, it } from 'vitest';
import { isPythonBlank, pythonRepr, pythonStr } from './python-text.ts';

describe('pythonRepr', () => {
  it("quotes as Python's repr does", () => {
    expect(pythonRepr('plain')).toBe("'plain'");
    expect(pythonRepr("it's")).toBe(`"it's"`);
    expect(pythonRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pythonRepr('a\nb\\c\td\re')).toBe("'a\\nb\\\\c\\td\\re'");
    expect(pythonRepr('')).toBe("''");
  });

  it('escapes what Python does not print: \\xa0, \\xad, \\u200b, separators, astral format characters', () => {
    expect(pythonRepr('a\u00a0b\u00adc\u200bd')).toBe("'a\\xa0b\\xadc\\u200bd'");
    expect(pythonRepr('\x00\x1f\x7f\x85')).toBe("'\\x00\\x1f\\x7f\\x85'");
    expect(pythonRepr('line\u2028sep\u3000wide')).toBe("'line\\u2028sep\\u3000wide'");
    expect(pythonRepr('tag\u{e0001}')).toBe("'tag\\U000e0001'");
  });

  it('prints printable text as it is: accents, symbols, emoji, CJK', () => {
    expect(pythonRepr('Café — 12 € • 😀 漢字')).toBe("'Café — 12 € • 😀 漢字'");
  });
});

describe('pythonStr', () => {
  it("prints values as Python's str(), text escaped so it stays on one line", () => {
    expect(pythonStr(true)).toBe('True');
    expect(pythonStr(false)).toBe('False');
    expect(pythonStr(null)).toBe('None');
    expect(pythonStr(3)).toBe('3');
    expect(pythonStr('http://x/a?b=1')).toBe('http://x/a?b=1');
    expect(pythonStr("it's")).toBe("it's");
    expect(pythonStr('hello\nworld\\')).toBe('hello\\nworld\\\\');
  });
});

describe('isPythonBlank', () => {
  it("is Python's `not text.strip()`, not JavaScript's trim", () => {
    expect(isPythonBlank('')).toBe(true);
    expect(isPythonBlank(' \t\n\u00a0\u3000\x1c\x85')).toBe(true);
    expect(isPythonBlank('\ufeff')).toBe(false);
    expect(isPythonBlank('\u200b')).toBe(false);
    expect(isPythonBlank(' a ')).toBe(false);
  });
});
