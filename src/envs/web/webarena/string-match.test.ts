import { describe, expect, it } from 'vitest';
import {
  cleanAnswer,
  exactMatch,
  mustExclude,
  mustInclude,
  mustIncludeAny,
  wordTokens,
} from './string-match.ts';

describe('WebArena string comparisons', () => {
  it('cleans answers as WebArena does: trim, one pair of quotes, lowercase', () => {
    expect(cleanAnswer('  "Hello World" ')).toBe('hello world');
    expect(cleanAnswer("'Mixed'")).toBe('mixed');
    expect(cleanAnswer('"unbalanced\'')).toBe('"unbalanced\'');
    expect(cleanAnswer('""quoted twice""')).toBe('"quoted twice"');
  });

  it('exact_match compares cleaned strings', () => {
    expect(exactMatch('Pittsburgh', ' "pittsburgh" ')).toBe(true);
    expect(exactMatch('Pittsburgh', 'Pittsburgh, PA')).toBe(false);
  });

  it('must_include finds substrings; a lone one-character reference must be a whole token', () => {
    expect(mustInclude('Joust Bag', 'the top terms: hollister, joust bag, nike')).toBe(true);
    expect(mustInclude('0', 'there are 10 comments')).toBe(true);
    expect(mustInclude('0', 'there are 10 comments', true)).toBe(false);
    expect(mustInclude('0', 'there are 0 comments', true)).toBe(true);
    expect(mustInclude('0', 'I counted $0.', true)).toBe(true);
  });

  it('must_include accepts any |OR| alternative', () => {
    expect(mustIncludeAny('yes |OR| correct', 'That is correct')).toBe(true);
    expect(mustIncludeAny('yes |OR| correct', 'no')).toBe(false);
  });

  it('must_exclude rejects a one-word reference only as a whole word', () => {
    expect(mustExclude('no', 'nothing to report')).toBe(true);
    expect(mustExclude('no', 'no, never')).toBe(false);
    expect(mustExclude('out of stock', 'this item is Out of Stock')).toBe(false);
  });

  it('tokenizes numbers with separators as one token and punctuation apart', () => {
    expect(wordTokens('$1,000.50 total.')).toEqual(['$', '1,000.50', 'total', '.']);
  });
});
