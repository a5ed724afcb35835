import { describe, expect, it } from 'vitest';
import { isSuccess, type Trajectory } from '../../core/types.ts';
import { summarize } from '../../data/summary.ts';
import { collect } from '../../rl/collect.ts';
import { keysAndDoorsEntry } from './entry.ts';
import { KeysAndDoorsExpert } from './expert.ts';

const tasks = keysAndDoorsEntry.tasks({}).tasks('train', 50);

const run = (epsilon: number, seed: number) =>
  collect({
    env: keysAndDoorsEntry.make({}),
    policy: keysAndDoorsEntry.expert?.({ epsilon }) as KeysAndDoorsExpert,
    tasks,
    episodes: tasks.length,
    seed,
    provenance: 'real-offline',
  });

describe('KeysAndDoorsExpert', () => {
  it('reaches every goal at ε = 0 without a refused command', async () => {
    const summary = summarize(await run(0, 1));
    expect(summary.successRate).toBe(1);
    expect(summary.invalidActionRate).toBe(0);
  });

  it('errs at ε = 0.3: slips it recovers from, and wrong keys that end episodes with 0', async () => {
    const trajectories = await run(0.3, 1);
    const summary = summarize(trajectories);
    expect(summary.successRate).toBeGreaterThan(0.5);
    expect(summary.successRate).toBeLessThan(0.95);
    expect(summary.invalidActionRate).toBeGreaterThan(0);
    const noisy = (t: Trajectory) => t.steps.some((s) => s.reasoning?.includes('(noise)'));
    const failed = trajectories.filter((t) => !isSuccess(t));
    expect(failed.every(noisy)).toBe(true);
    expect(failed.some((t) => t.steps.at(-1)?.reasoning?.includes('key that does not fit'))).toBe(
      true,
    );
    const recovered = trajectories.filter((t) => isSuccess(t) && noisy(t));
    expect(recovered.length).toBeGreaterThan(5);
  });

  it('is deterministic given the seed', async () => {
    const actions = (ts: Trajectory[]) => ts.map((t) => t.steps.map((s) => s.action));
    expect(actions(await run(0.3, 7))).toEqual(actions(await run(0.3, 7)));
    expect(actions(await run(0.3, 7))).not.toEqual(actions(await run(0.3, 8)));
  });

  it('refuses an epsilon outside [0, 1]', () => {
    expect(() => new KeysAndDoorsExpert({ epsilon: 1.5 })).toThrow(/epsilon/);
  });
});
