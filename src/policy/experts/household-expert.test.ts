import { describe, expect, it } from 'vitest';
import { isSuccess, type Trajectory } from '../../core/types.ts';
import { summarize } from '../../data/summary.ts';
import { TASK_TYPES } from '../../envs/household/goals.ts';
import { makeHousehold } from '../../envs/household/household-env.ts';
import { householdSpec, householdTasks } from '../../envs/household/tasks.ts';
import { collect } from '../../rl/collect.ts';
import { HouseholdExpert } from './household-expert.ts';

const tasks = householdTasks('test', 300);

const run = (epsilon: number, seed: number) =>
  collect({
    env: makeHousehold({ split: 'test' }),
    policy: new HouseholdExpert({ epsilon }),
    tasks,
    episodes: tasks.length,
    seed,
    provenance: 'real-offline',
  });

/** Success rate per task type. */
function successByType(trajectories: readonly Trajectory[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const type of TASK_TYPES) {
    const ofType = trajectories.filter((t) => householdSpec(t.task).goal.type === type);
    out[type] = ofType.filter(isSuccess).length / ofType.length;
  }
  return out;
}

describe('HouseholdExpert', () => {
  it('solves ≥ 95% of the test tasks of every type at ε = 0, without an invalid command', async () => {
    const trajectories = await run(0, 1);
    for (const [type, rate] of Object.entries(successByType(trajectories))) {
      expect(rate, type).toBeGreaterThanOrEqual(0.95);
    }
    expect(summarize(trajectories).invalidActionRate).toBe(0);
  });

  it('makes realistic mistakes at ε = 0.3: successes and failures both appear, of every kind', async () => {
    const trajectories = await run(0.3, 1);
    const summary = summarize(trajectories);
    expect(summary.successRate).toBeGreaterThan(0.4);
    expect(summary.successRate).toBeLessThan(0.95);
    expect(summary.invalidActionRate).toBeGreaterThan(0);
    for (const [type, rate] of Object.entries(successByType(trajectories))) {
      expect(rate, type).toBeGreaterThan(0.3);
      expect(rate, type).toBeLessThan(1);
    }
    const reasons = trajectories.flatMap((t) => t.steps.map((s) => s.reasoning ?? ''));
    for (const kind of [
      'wrong place',
      'looked around',
      'wrong object',
      'forgot to',
      'searching',
      'misread',
    ]) {
      expect(
        reasons.some((r) => r.includes(kind)),
        kind,
      ).toBe(true);
    }
    // Failures run out of steps; successes recover from slips.
    expect(trajectories.filter((t) => !isSuccess(t)).every((t) => t.steps.at(-1)?.truncated)).toBe(
      true,
    );
    const recovered = trajectories.filter(
      (t) => isSuccess(t) && t.steps.some((s) => s.reasoning?.includes('(noise)')),
    );
    expect(recovered.length).toBeGreaterThan(50);
  });

  it('is deterministic given the seed', async () => {
    const actions = (ts: Trajectory[]) => ts.map((t) => t.steps.map((s) => s.action));
    expect(actions(await run(0.3, 7))).toEqual(actions(await run(0.3, 7)));
    expect(actions(await run(0.3, 7))).not.toEqual(actions(await run(0.3, 8)));
  });

  it('refuses an epsilon outside [0, 1]', () => {
    expect(() => new HouseholdExpert({ epsilon: -0.1 })).toThrow(/epsilon/);
  });
});
