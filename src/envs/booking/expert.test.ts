import { describe, expect, it } from 'vitest';
import { isSuccess, type Trajectory } from '../../core/types.ts';
import { summarize } from '../../data/summary.ts';
import { collect } from '../../rl/collect.ts';
import { bookingEntry } from './entry.ts';
import { BookingExpert } from './expert.ts';

const tasks = bookingEntry.tasks({}).tasks('train', 50);

const run = (epsilon: number, seed: number) =>
  collect({
    env: bookingEntry.make({}),
    policy: bookingEntry.expert?.({ epsilon }) as BookingExpert,
    tasks,
    episodes: tasks.length,
    seed,
    provenance: 'real-offline',
  });

describe('BookingExpert', () => {
  it('books every request right at ε = 0 without a refused action', async () => {
    const summary = summarize(await run(0, 1));
    expect(summary.successRate).toBe(1);
    expect(summary.invalidActionRate).toBe(0);
  });

  it('errs at ε = 0.3: slips it recovers from, and lapses that end in a wrong booking', async () => {
    const trajectories = await run(0.3, 1);
    const summary = summarize(trajectories);
    expect(summary.successRate).toBeGreaterThan(0.5);
    expect(summary.successRate).toBeLessThan(0.95);
    expect(summary.invalidActionRate).toBeGreaterThan(0);
    const noisy = (t: Trajectory) => t.steps.some((s) => s.reasoning?.includes('(noise)'));
    const failed = trajectories.filter((t) => !isSuccess(t));
    expect(failed.every(noisy)).toBe(true);
    for (const lapse of ['settled for', 'without noticing']) {
      const lapsed = failed.filter((t) => t.steps.some((s) => s.reasoning?.includes(lapse)));
      expect(lapsed.length, lapse).toBeGreaterThan(0);
    }
    const recovered = trajectories.filter((t) => isSuccess(t) && noisy(t));
    expect(recovered.length).toBeGreaterThan(5);
  });

  it('is deterministic given the seed', async () => {
    const actions = (ts: Trajectory[]) => ts.map((t) => t.steps.map((s) => s.action));
    expect(actions(await run(0.3, 7))).toEqual(actions(await run(0.3, 7)));
    expect(actions(await run(0.3, 7))).not.toEqual(actions(await run(0.3, 8)));
  });

  it('refuses an epsilon outside [0, 1]', () => {
    expect(() => new BookingExpert({ epsilon: 1.5 })).toThrow(/epsilon/);
  });
});
