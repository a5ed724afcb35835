import { describe, expect, it } from 'vitest';
import { urlMatch } from './url-match.ts';

describe("url_match (WebArena's GOLD in PRED)", () => {
  const gold = 'http://shop.test:7770/catalogsearch/result/?q=yoga+mat&cat=3';

  it('passes when the base path matches and every gold query value is present', () => {
    const found = 'http://shop.test:7770/catalogsearch/result/index/?cat=3&q=yoga%20mat&page=2';
    expect(urlMatch(gold, found).passed).toBe(true);
  });

  it('fails when a gold query value is missing or different', () => {
    const wrong = urlMatch(gold, 'http://shop.test:7770/catalogsearch/result/?q=yoga+mat&cat=4');
    expect(wrong.passed).toBe(false);
    expect(wrong.detail).toContain('query lacks cat=3');
    expect(urlMatch(gold, 'http://shop.test:7770/catalogsearch/result/?q=yoga+mat').passed).toBe(
      false,
    );
  });

  it('fails on another path and ignores trailing slashes', () => {
    expect(urlMatch('http://a.test/f/books/', 'http://a.test/f/movies').passed).toBe(false);
    expect(urlMatch('http://a.test/f/books/', 'http://a.test/f/books').passed).toBe(true);
  });

  it('accepts any |OR| alternative', () => {
    const ref = 'http://a.test/dashboard/todos |OR| http://a.test/todos';
    expect(urlMatch(ref, 'http://a.test/todos').passed).toBe(true);
    expect(urlMatch(ref, 'http://a.test/issues').passed).toBe(false);
  });

  it('compares paths percent-decoded', () => {
    expect(
      urlMatch('http://w.test/wiki/São_Paulo', 'http://w.test/wiki/S%C3%A3o_Paulo').passed,
    ).toBe(true);
  });

  it("knows WebArena-Lite's EXACT and refuses to guess an unknown rule", () => {
    expect(urlMatch('http://a.test/x', 'http://a.test/x/', 'EXACT').passed).toBe(true);
    expect(urlMatch('http://a.test/x', 'http://a.test/x/y', 'EXACT').passed).toBe(false);
    const unknown = urlMatch('http://a.test/x', 'http://a.test/x', 'FUZZY');
    expect(unknown.passed).toBeUndefined();
    expect(unknown.detail).toContain('unknown url_note "FUZZY"');
  });
});
