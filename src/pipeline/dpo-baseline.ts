import type { Trajectory } from '../core/types.ts';
import type { TrainablePolicy } from '../policy/policy.ts';
import { hasExpert, makePolicy } from '../policy/registry.ts';
import { CHOICE_POLICY_DPO_BETA, type DpoResult, directPreferenceOptimization } from '../rl/dpo.ts';
import {
  expertPreferencePairs,
  offlinePreferencePairs,
  type PreferencePair,
} from '../rl/preference-pairs.ts';

/**
 * The DPO row's name in the demo tables. Its pairs are the offline states where the mistake-free
 * expert would have acted otherwise than the ε-expert did: the demos' offline data has one
 * episode per task, where pairs from the data alone (a success and a failure in the same state)
 * do not occur.
 */
export const DPO_ROW = 'DPO (expert-labelled offline pairs, from BC)';

/**
 * The paper's DPO baseline on offline data: `policy` (behaviour cloning's, the frozen reference)
 * trained by DPO on the pairs of the offline trajectories — the env's mistake-free scripted
 * expert's choice against the action taken wherever they differ (envs with an expert), and the
 * pairs the data holds on its own (a success and a failure in the same state). No env step is
 * taken.
 */
export async function dpoFromOffline(
  policy: TrainablePolicy,
  offline: readonly Trajectory[],
  { env, seed, beta = CHOICE_POLICY_DPO_BETA }: { env: string; seed: number; beta?: number },
): Promise<DpoResult & { pairCount: number }> {
  const pairs = await offlineDpoPairs(offline, { env, seed });
  return {
    ...directPreferenceOptimization(policy, pairs, { seed, beta }),
    pairCount: pairs.length,
  };
}

/**
 * The pairs {@link dpoFromOffline} trains on: the data's own (a success and a failure of a task in
 * the same state), then, on an env with a scripted expert, the mistake-free expert's choice
 * against each action of the data it would not have taken.
 */
export async function offlineDpoPairs(
  offline: readonly Trajectory[],
  { env, seed }: { env: string; seed: number },
): Promise<PreferencePair[]> {
  const labelled = hasExpert(env)
    ? await expertPreferencePairs(offline, makePolicy('expert', { env, epsilon: 0 }), { seed })
    : [];
  return [...offlinePreferencePairs(offline, { seed }), ...labelled];
}

/** One progress line about a DPO fit: its pairs, epochs and held-out fit. */
export function describeDpoFit(fit: DpoResult & { pairCount: number }): string {
  const held = fit.validation
    ? `, held-out DPO loss ${fit.validation.best.loss.toFixed(3)} (pairs ranked right ${(100 * fit.validation.best.accuracy).toFixed(0)}%, kept epoch ${fit.validation.bestEpoch})`
    : '';
  return `${fit.pairCount} pairs, ${fit.epochs} epochs${held}${fit.warnings.map((w) => `; ${w}`).join('')}`;
}
