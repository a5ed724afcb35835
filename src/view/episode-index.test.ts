import { describe, expect, it } from 'vitest';
import { EpisodeIndex } from './episode-index.ts';
import { sketchSummary } from './testing/episodes.ts';

function index(): EpisodeIndex {
  const ix = new EpisodeIndex();
  ix.add([
    sketchSummary(1, { provenance: 'real-offline', success: true, finalReward: 1, taskId: 'a' }),
    sketchSummary(2, { provenance: 'real-offline', finalReward: 0.5, taskId: 'b' }),
    sketchSummary(3, { provenance: 'synthetic', finalReward: 0.2, taskId: 'a', end: 'time-limit' }),
    sketchSummary(4, { provenance: 'synthetic', success: true, finalReward: 1, taskId: 'c' }),
    sketchSummary(5, { provenance: 'synthetic', finalReward: 0.7, taskId: 'c', steps: 9 }),
    sketchSummary(6, { provenance: 'real-online', finalReward: 0, taskId: 'd', policyId: 'grpo' }),
  ]);
  return ix;
}

describe('EpisodeIndex', () => {
  it('filters by several facets at once and counts each facet without its own filter', () => {
    const page = index().query({ facets: { provenance: 'synthetic', outcome: 'failure' } });
    expect(page.episodes.map((e) => e.rowid)).toEqual([5, 3]);
    expect(page.total).toBe(2);
    // Choosing another provenance would show these many failures…
    expect(Object.fromEntries(page.counts.provenance)).toEqual({
      synthetic: 2,
      'real-offline': 1,
      'real-online': 1,
    });
    // …and another outcome this many synthetic episodes.
    expect(Object.fromEntries(page.counts.outcome)).toEqual({ failure: 2, success: 1 });
    expect(Object.fromEntries(page.counts.end)).toEqual({ terminated: 1, 'time-limit': 1 });
  });

  it('sorts, pages, and keeps ties in the order episodes were added', () => {
    const ix = index();
    expect(ix.query({ sort: 'reward' }).episodes.map((e) => e.rowid)).toEqual([1, 4, 5, 2, 3, 6]);
    expect(ix.query({ sort: 'reward', descending: false }).episodes.map((e) => e.rowid)).toEqual([
      6, 3, 2, 5, 1, 4,
    ]);
    const second = ix.query({ pageSize: 4, page: 1 });
    expect(second.episodes.map((e) => e.rowid)).toEqual([2, 1]);
    expect(second.pages).toBe(2);
    // A page past the end shows the last one.
    expect(ix.query({ pageSize: 4, page: 9 }).page).toBe(1);
  });

  it('finds tasks with both real and synthetic episodes, and text in task ids or instructions', () => {
    const ix = index();
    expect(ix.paired('a')).toBe(true);
    expect(ix.paired('c')).toBe(false);
    expect(ix.query({ paired: true }).episodes.map((e) => e.rowid)).toEqual([3, 1]);
    expect(ix.query({ task: 'D' }).episodes.map((e) => e.rowid)).toEqual([6]);
    expect(ix.query({ minReward: 0.5, maxReward: 0.9 }).episodes.map((e) => e.rowid)).toEqual([
      5, 2,
    ]);
  });

  it('ignores episodes it already holds, and shows added ones in lists it has answered before', () => {
    const ix = index();
    expect(ix.query({ sort: 'steps' }).total).toBe(6);
    ix.add([sketchSummary(1), sketchSummary(7, { steps: 99 })]);
    expect(ix.size).toBe(7);
    const after = ix.query({ sort: 'steps' });
    expect(after.total).toBe(7);
    expect(after.episodes[0]?.rowid).toBe(7);
  });
});
