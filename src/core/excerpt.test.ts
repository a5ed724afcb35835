import { describe, expect, it } from 'vitest';
import { EXCERPT_CHARS, quoteExcerpt } from './excerpt.ts';

describe('quoteExcerpt', () => {
  it('keeps a short text whole, on one line', () => {
    expect(quoteExcerpt('  Internal\n\tServer   Error ')).toBe('"Internal Server Error"');
    expect(quoteExcerpt('{"ok":"yes"}')).toBe('"{"ok":"yes"}"');
  });

  it('escapes control characters and undecodable bytes, so no terminal runs them', () => {
    const garbage = new TextDecoder().decode(
      new Uint8Array([0x1b, 0x5b, 0x32, 0x4a, 0xff, 0x00, 0x07, 0x41, 0x7f]),
    );
    expect(quoteExcerpt(garbage)).toBe('"\\x1b[2J\\ufffd\\x00\\x07A\\x7f"');
  });

  it('clips a long text to about EXCERPT_CHARS characters, escapes included, and gives its length', () => {
    const long = quoteExcerpt('a'.repeat(5_000));
    expect(long).toBe(`"${'a'.repeat(EXCERPT_CHARS)}…" (5,000 characters)`);
    const binary = quoteExcerpt('\u0001'.repeat(4_096));
    expect(binary.length).toBeLessThan(EXCERPT_CHARS + 30);
    expect(binary).toMatch(/^"(\\x01)+…" \(4,096 characters\)$/);
  });
});
