import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_PAGES_DIR, benchPage, benchPages } from '../scripts/results-pages.ts';

describe('the generated results pages', () => {
  it('are committed exactly as bench/results/*.json generates them (else run npm run docs:results)', () => {
    const pages = benchPages();
    const committed = readdirSync(BENCH_PAGES_DIR)
      .filter((f) => f.endsWith('.md'))
      .sort();
    expect(committed).toEqual([...pages.keys()].sort());
    for (const [file, text] of pages) {
      expect(
        readFileSync(join(BENCH_PAGES_DIR, file), 'utf8'),
        `${file} is stale: run npm run docs:results`,
      ).toBe(text);
    }
  });

  it('name the command, seeds, date, machine and commit, and every figure of the JSON', () => {
    const page = benchPage({
      name: 'x',
      date: '2026-01-01T00:00:00.000Z',
      machine: { cores: 2 },
      seeds: [0, 1],
      commit: 'abc',
      results: { a: { p50: 0.123456 }, list: [{ n: 3 }] },
    });
    expect(page).toContain('| command | `npm run bench -- x` |');
    expect(page).toContain('| seeds | 0, 1 |');
    expect(page).toContain('| machine | cores 2 |');
    expect(page).toContain('| commit | abc |');
    expect(page).toContain('| `a.p50` | 0.1235 |');
    expect(page).toContain('| `list.[0].n` | 3 |');
  });

  it('name the tag of a part run with BENCH_TAG, from the file name', () => {
    const result = { name: 'x', date: '2026-01-01T00:00:00.000Z', machine: {}, results: {} };
    const page = benchPage(result, 'x.part-a');
    expect(page).toContain('Generated from `bench/results/x.part-a.json`');
    expect(page).toContain('| command | `BENCH_TAG=part-a npm run bench -- x` |');
  });
});
