import { randomUUID } from 'node:crypto';
import { Rng } from '../core/rng.ts';
import type { Observation, Provenance, Step, Task, Trajectory } from '../core/types.ts';
import type { BranchPoint, Env } from '../envs/env.ts';
import { PolicyOutputError } from '../policy/errors.ts';
import type { Policy, PolicyAction } from '../policy/policy.ts';

/** The task, seed and provenance of one episode. */
export interface EpisodeOptions {
  task?: Task;
  /**
   * Start in a recorded real episode's state instead (`Env.reset({ from })`, synthetic envs
   * only): the policy sees that episode's earlier steps as its history. Not with `task`.
   */
  from?: BranchPoint;
  /**
   * Steps after which the episode is cut off (truncated, `info.truncatedBy: 'horizon'`) if it has
   * not ended: a branched rollout's H. Default: none.
   */
  horizon?: number;
  /** Seeds the env's task draw (when no task is given) and the policy's random stream. */
  seed: number;
  provenance: Provenance;
  /** Safety stop for envs without a step limit. Default 1,000. */
  maxSteps?: number;
  /** Sees each decision as the policy made it (log-probability, value), e.g. for RL rollouts. */
  onDecision?: (decision: PolicyAction, t: number) => void;
}

/**
 * Plays one episode of `policy` in `env` and records it as a {@link Trajectory}. Stops when the
 * env terminates or truncates; an env that does neither within `maxSteps` is a bug, so it throws.
 * A policy that cannot produce an action ({@link PolicyOutputError}) ends the episode as
 * truncated (`info.truncatedBy: 'policy-error'`); see `policyErrorStep`.
 */
export async function runEpisode(
  env: Env,
  policy: Policy,
  options: EpisodeOptions,
): Promise<Trajectory> {
  return (await playEpisode(env, policy, options)).trajectory;
}

/** An episode played by {@link playEpisode}. */
export interface PlayedEpisode {
  /** The episode from its start (for a branched one, from the branch state). */
  trajectory: Trajectory;
  /** A branched episode's recorded steps before the branch, which the policy saw; else none. */
  prefix: Step[];
}

/**
 * {@link runEpisode}, also giving back the recorded steps a branched episode started after, which
 * the policy saw as its history (training needs them to re-evaluate its decisions).
 */
export async function playEpisode(
  env: Env,
  policy: Policy,
  options: EpisodeOptions,
): Promise<PlayedEpisode> {
  const startedAt = new Date().toISOString();
  const { task, from, seed, horizon } = options;
  if (horizon !== undefined && !(Number.isInteger(horizon) && horizon >= 1)) {
    throw new RangeError(`an episode's horizon must be a whole number from 1, got ${horizon}.`);
  }
  const resetOptions = from ? { from, seed } : task ? { task, seed } : { seed };
  const { observation: initial, info } = await env.reset(resetOptions);
  const prefix = from ? (info.history ?? []) : [];
  const rng = new Rng(options.seed).fork('policy');
  const steps: Step[] = [];
  const maxSteps = options.maxSteps ?? 1000;
  let observation = initial;
  while (steps.length < maxSteps) {
    if (steps.length === horizon) {
      cutAtHorizon(steps.at(-1) as Step);
      break;
    }
    let decision: PolicyAction;
    try {
      const history = prefix.length > 0 ? [...prefix, ...steps] : steps;
      decision = await policy.act(observation, { task: info.task, history, rng });
    } catch (error) {
      if (!(error instanceof PolicyOutputError)) throw error;
      // Reported like any decision, so observers keep one entry per recorded step.
      options.onDecision?.({ action: error.attemptedAction }, steps.length);
      steps.push(policyErrorStep(observation, error));
      break;
    }
    options.onDecision?.(decision, steps.length);
    const result = await env.step(decision.action);
    const step: Step = {
      action: decision.action,
      observation: result.observation,
      reward: result.reward,
      terminated: result.terminated,
      truncated: result.truncated,
      info: result.info,
    };
    if (decision.reasoning !== undefined) step.reasoning = decision.reasoning;
    steps.push(step);
    observation = result.observation;
    if (result.terminated || result.truncated) break;
  }
  const last = steps.at(-1);
  if (!last || !(last.terminated || last.truncated)) {
    throw new Error(
      `${env.name}: episode did not end within ${maxSteps} steps; wrap the env in a TimeLimit.`,
    );
  }
  const trajectory: Trajectory = {
    id: randomUUID(),
    env: env.name,
    task: info.task,
    initial,
    steps,
    provenance: options.provenance,
    policyId: policy.id,
    seed: options.seed,
    startedAt,
    endedAt: new Date().toISOString(),
  };
  return { trajectory, prefix };
}

/** Marks the last step of an episode cut off at its horizon as truncated. */
function cutAtHorizon(step: Step): void {
  step.truncated = true;
  step.info = { ...step.info, truncatedBy: 'horizon' };
}

/**
 * The step that records a policy failure. The env never saw the attempted action, so the state is
 * unchanged and the reward 0, as for an inadmissible action; the episode is truncated, not
 * terminated, because the task itself could have gone on.
 */
function policyErrorStep(observation: Observation, error: PolicyOutputError): Step {
  const step: Step = {
    action: error.attemptedAction,
    observation,
    reward: 0,
    terminated: false,
    truncated: true,
    info: { invalidAction: error.problem, truncatedBy: 'policy-error' },
  };
  if (error.reasoning !== undefined) step.reasoning = error.reasoning;
  return step;
}
