import { describe, expect, it } from 'vitest';
import { matchesText, regexProblem } from './check.ts';

describe('MCP success-check matches', () => {
  it('exact: equal once trimmed, case counts', () => {
    expect(matchesText('  2 \n', { exact: '2' })).toBe(true);
    expect(matchesText('2 copies', { exact: '2' })).toBe(false);
    expect(matchesText('Done', { exact: 'done' })).toBe(false);
  });

  it('contains: anywhere, ignoring case', () => {
    expect(matchesText('b3 Beloved — ada', { contains: 'beloved' })).toBe(true);
    expect(matchesText('No loans for ada.', { contains: 'Beloved' })).toBe(false);
  });

  it('regex: a JavaScript regular expression with optional flags', () => {
    expect(matchesText('george eliot.', { regex: '^george eliot\\.?$' })).toBe(true);
    expect(matchesText('George Eliot', { regex: '^george eliot$' })).toBe(false);
    expect(matchesText('George Eliot', { regex: '^george eliot$', flags: 'i' })).toBe(true);
    expect(matchesText('b1\nb6 Kindred — linus', { regex: '^b6 Kindred', flags: 'm' })).toBe(true);
  });

  it('names a regex that does not compile', () => {
    expect(regexProblem({ regex: '(' })).toMatch(/Invalid regular expression/);
    expect(regexProblem({ regex: 'a', flags: 'q' })).toMatch(/flags/);
    expect(regexProblem({ regex: 'a', flags: 'i' })).toBeUndefined();
    expect(regexProblem({ exact: '(' })).toBeUndefined();
  });
});
