/** The benches' false-positive measure: a trained policy's synthetic successes, replayed. */
import { isSuccess } from '../src/core/types.ts';
import type { Env } from '../src/envs/env.ts';
import type { EnvSetup } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import type { Policy } from '../src/policy/policy.ts';
import { rollout } from '../src/rl/rollout.ts';

/**
 * `policy` plays the first `tasks` train tasks in `synthetic` (seeded by `seed`); its synthetic
 * successes are replayed in the real env: how many there were, and the share the real env refutes.
 */
export async function syntheticFalsePositives(
  setup: EnvSetup,
  synthetic: () => Env,
  policy: Policy,
  seed: number,
  tasks = 100,
): Promise<{ syntheticSuccesses: number; falsePositive: number }> {
  const episodes = await rollout({
    makeEnv: synthetic,
    policy,
    tasks: setup.trainTasks.slice(0, tasks),
    seed: 200 + seed,
    provenance: 'synthetic',
  });
  const real = setup.makeReal();
  const replay = await replayInReal({
    trajectories: episodes.map((e) => e.trajectory),
    realEnv: real,
  });
  await real.close();
  return {
    syntheticSuccesses: episodes.filter((e) => isSuccess(e.trajectory)).length,
    falsePositive: replay.falsePositiveShare,
  };
}
