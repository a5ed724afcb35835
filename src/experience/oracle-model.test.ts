import { describe, expect, it } from 'vitest';
import type { Step, Trajectory } from '../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../envs/env.ts';
import { makeWebShop } from '../envs/webshop/webshop-env.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { OracleExperienceModel } from './oracle-model.ts';
import { SyntheticEnv } from './synthetic-env.ts';

/** `makeEnv` whose envs count their resets and steps. */
function counting(makeEnv: () => Env) {
  const counts = { resets: 0, steps: 0 };
  const make = (): Env => {
    const env = makeEnv();
    return {
      name: env.name,
      reset: (options?: ResetOptions): Promise<ResetResult> => {
        counts.resets++;
        return env.reset(options);
      },
      step: (action: string): Promise<StepResult> => {
        counts.steps++;
        return env.step(action);
      },
      close: () => env.close(),
    };
  };
  return { make, counts };
}

describe('OracleExperienceModel', () => {
  const catalog = { seed: 0, size: 1000 };

  it('answers each step as the real env does: a synthetic episode over it is the real episode', async () => {
    const real = (await webshopTrajectories(8)).find((t) => t.steps.length >= 3) as Trajectory;
    const { make, counts } = counting(() => makeWebShop({ catalog }));
    const oracle = new OracleExperienceModel(make);
    const env = new TimeLimit(
      new SyntheticEnv({ env: 'webshop', model: oracle, buffer: SqliteReplayBuffer.open(), k: 0 }),
      15,
    );
    const { observation } = await env.reset({ task: real.task });
    expect(observation.text).toBe(real.initial.text);
    for (const step of real.steps) {
      const result = await env.step(step.action);
      expect(result.observation.text).toBe(step.observation.text);
      expect([result.reward, result.terminated]).toEqual([step.reward, step.terminated]);
      expect(result.info.uncertainty).toBe(0);
    }
    // The kept real env followed the episode: one reset for the start, one for the steps.
    expect(counts).toEqual({ resets: 2, steps: real.steps.length });
    await oracle.close();
  });

  it('replays the history from the start for a step of another episode (a branch)', async () => {
    const real = (await webshopTrajectories(8)).find((t) => t.steps.length >= 3) as Trajectory;
    const buffer = SqliteReplayBuffer.open();
    await buffer.add([real]);
    const { make, counts } = counting(() => makeWebShop({ catalog }));
    const oracle = new OracleExperienceModel(make);
    const env = new SyntheticEnv({ env: 'webshop', model: oracle, buffer, k: 0 });
    await env.reset({ from: { trajectory: real.id, step: 2 } });
    const next = await env.step((real.steps[2] as Step).action);
    expect(next.observation.text).toBe((real.steps[2] as Step).observation.text);
    expect(counts).toEqual({ resets: 1, steps: 3 });
    await oracle.close();
  });
});
