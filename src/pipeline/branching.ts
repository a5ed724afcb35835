/**
 * Branched rollouts wired for a training run: the trainer's `branchPoints` drawn from the replay
 * buffer's real episodes, chosen uniformly or where the policy departs from them.
 */
import { ConfigError } from '../core/errors.ts';
import type { Rng } from '../core/rng.ts';
import { BRANCH_PICKS, type BranchPick, BranchPoints } from '../experience/branch-points.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { TrainerIO, TrainerPolicy } from '../rl/trainer.ts';

/** A run's branching: the trainer's share and horizon, and how branch states are picked. */
export interface BranchingOptions {
  /** Share of each iteration's groups that start from real states, in [0, 1]. Default 0. */
  share: number;
  /** Steps a continuation may take past its branch state. Default 5. */
  horizon: number;
  /** Where to branch (`uniform` or `divergence`). Default `uniform`. */
  pick?: BranchPick;
}

/**
 * The trainer's `branchPoints` for `env`'s real episodes in `buffer`; `refresh()` learns real
 * episodes the buffer gained since (S2R's). With `divergence`, the policy's greedy choice at each
 * candidate state is compared with the real episode's next action.
 */
export async function bufferBranchPoints(
  buffer: ReplayBuffer,
  env: string,
  policy: TrainerPolicy,
  pick: BranchPick = 'uniform',
): Promise<{ branchPoints: NonNullable<TrainerIO['branchPoints']>; refresh(): Promise<number> }> {
  if (!BRANCH_PICKS.includes(pick)) {
    throw new ConfigError(
      `unknown branch pick "${pick}"; choose one of ${BRANCH_PICKS.join(', ')}.`,
    );
  }
  const points = await BranchPoints.fromBuffer(buffer, env);
  const branchPoints = async (n: number, rng: Rng) => {
    if (pick === 'uniform') return points.pick(n, rng);
    const temperature = policy.temperature;
    policy.temperature = 0;
    try {
      return await points.pick(n, rng, 'divergence', {
        choose: async (s) =>
          (
            await policy.act(s.state, {
              task: s.task,
              history: s.history,
              rng: rng.fork('divergence'),
            })
          ).action,
      });
    } finally {
      policy.temperature = temperature;
    }
  };
  return { branchPoints, refresh: () => points.refresh() };
}
