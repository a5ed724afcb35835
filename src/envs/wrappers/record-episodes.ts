import { randomUUID } from 'node:crypto';
import {
  copyObservation,
  isSuccess,
  type Provenance,
  type Step,
  type Trajectory,
} from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../env.ts';

/** Where a {@link RecordEpisodes} wrapper sends finished episodes, and how it labels them. */
export interface RecordEpisodesOptions {
  /**
   * Called once per finished episode — terminated, truncated by a step limit, or cut short by the
   * env (a model error, say) — with the whole trajectory; the step that ended it returns after.
   */
  onEpisode: (trajectory: Trajectory) => void | Promise<void>;
  /** The provenance the trajectories are labelled with (`synthetic` for a synthetic env's). */
  provenance: Provenance;
  /** The policy that played, as stored. Default `unknown`. */
  policyId?: string;
  /**
   * Leave out episodes started from a recorded state (`reset({ from })`): their record starts
   * mid-episode, so their actions cannot be replayed from the task's start. Default false.
   */
  skipBranched?: boolean;
}

/**
 * Records the episodes of the env it wraps, Gymnasium style: put it outside `TimeLimit`, so an
 * episode cut off by the step limit is recorded as ended like any other, with the reason the last
 * step's `info.truncatedBy` gives (`time-limit`, `model-error`, …). An episode abandoned by a reset
 * before it ended is not recorded.
 */
export class RecordEpisodes implements Env {
  private episode:
    | (Omit<Trajectory, 'endedAt' | 'steps'> & { steps: Step[]; ended: boolean })
    | undefined;

  constructor(
    readonly env: Env,
    private readonly options: RecordEpisodesOptions,
  ) {}

  get name(): string {
    return this.env.name;
  }

  async reset(options?: ResetOptions): Promise<ResetResult> {
    const result = await this.env.reset(options);
    if (this.options.skipBranched && result.info.branchedFrom) {
      this.episode = undefined;
      return result;
    }
    this.episode = {
      id: randomUUID(),
      env: this.env.name,
      task: result.info.task,
      initial: copyObservation(result.observation),
      steps: [],
      provenance: this.options.provenance,
      policyId: this.options.policyId ?? 'unknown',
      startedAt: new Date().toISOString(),
      ...(options?.seed !== undefined && { seed: options.seed }),
      ended: false,
    };
    return result;
  }

  async step(action: string): Promise<StepResult> {
    const result = await this.env.step(action);
    const episode = this.episode;
    if (!episode || episode.ended) return result; // the inner env has already refused or will
    const step: Step = {
      action,
      observation: copyObservation(result.observation),
      reward: result.reward,
      terminated: result.terminated,
      truncated: result.truncated,
      info: { ...result.info },
    };
    // An experience model's reasoning (SyntheticEnv's info.reasoning) is the step's reasoning.
    if (typeof result.info.reasoning === 'string') step.reasoning = result.info.reasoning;
    episode.steps.push(step);
    if (result.terminated || result.truncated) {
      episode.ended = true;
      const { ended: _, ...trajectory } = episode;
      await this.options.onEpisode({ ...trajectory, endedAt: new Date().toISOString() });
    }
    return result;
  }

  close(): Promise<void> {
    return this.env.close();
  }
}

/**
 * `makeEnv` with each env it makes recording its finished episodes that succeeded into
 * `successes` (labelled `provenance`): what a training run's synthetic successes were, to replay
 * them in the real env afterwards. Episodes branched from a recorded state are left out: replayed
 * from the task's start, their actions would not be the episode's.
 */
export function collectingSuccesses(
  makeEnv: () => Env,
  successes: Trajectory[],
  provenance: Provenance,
): () => Env {
  return () =>
    new RecordEpisodes(makeEnv(), {
      provenance,
      skipBranched: true,
      onEpisode: (t) => {
        if (isSuccess(t)) successes.push(t);
      },
    });
}
