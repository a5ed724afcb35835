import { randomUUID } from 'node:crypto';
import { DEFAULT_MAX_ACTION_CHARS, overlongAction } from '../core/action-limit.ts';
import type {
  Observation,
  Provenance,
  Step,
  StepInfo,
  Task,
  Trajectory,
  Transition,
} from '../core/types.ts';
import type { Env, ResetOptions, StepResult } from '../envs/env.ts';
import { EpisodePhaseError } from './errors.ts';

/** Hooks that see what remote trainers do in served envs, e.g. to record it. */
export interface RecordingHooks {
  /** After every step, before the answer goes out. */
  onTransition?: (transition: Transition) => void | Promise<void>;
  /** After the step that ends an episode (terminated or truncated). */
  onEpisode?: (trajectory: Trajectory) => void | Promise<void>;
  /**
   * When an episode is left unfinished — the client resets mid-episode, closes the session or
   * goes quiet until it is reaped — with the episode as far as it went (its last step, if any,
   * marked truncated with `truncatedBy: 'abandoned'`) and why. Every rollout is one or the other.
   */
  onAbandoned?: (trajectory: Trajectory, reason: string) => void | Promise<void>;
  /** After every step, synchronously: how long the env took and what it answered (metrics). */
  onStepTimed?: (seconds: number, result: StepResult) => void;
}

export interface RecordingOptions extends RecordingHooks {
  /** Provenance of reported trajectories: `real-online` for real envs, `synthetic` for synthetic ones. */
  provenance: Provenance;
  /** Policy id of reported trajectories; the policy is the remote trainer's, unknown here. */
  policyId: string;
  /** Where a failing hook is reported; a hook never fails the request. */
  warn: (message: string) => void;
}

/** The episode a session runs: enough to answer state queries and to report a trajectory. */
interface Episode {
  id: string;
  task: Task;
  seed: number | undefined;
  initial: Observation;
  current: Observation;
  /** The steps so far, kept only when a hook will report them (memory on long runs). */
  steps: Step[];
  stepCount: number;
  totalReward: number;
  startedAt: string;
  ended: 'terminated' | 'truncated' | undefined;
  lastInfo: StepInfo;
}

/** A session's episode as the protocols report it. */
export interface EpisodeStatus {
  episodeId: string;
  task: Task;
  observation: Observation;
  stepCount: number;
  totalReward: number;
  terminated: boolean;
  truncated: boolean;
  lastInfo: StepInfo;
}

/** Counters shared by all sessions of a server. */
export interface ServerStats {
  sessionsOpened: number;
  episodesStarted: number;
  episodesFinished: number;
  /** Episodes left unfinished: reset mid-episode, closed, or reaped while idle. */
  episodesAbandoned: number;
  steps: number;
}

/**
 * One client's env and its current episode. Calls run one at a time in arrival order (an env is
 * not safe to drive concurrently, and a client that pipelines requests expects them in order),
 * and `lastActive`/`busy` let the store reap sessions whose client went away.
 */
export class Session {
  lastActive: number;
  private episode: Episode | undefined;
  private pending = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Set by {@link abandonNow}: a call under way then returns nothing to its client. */
  private discarding = false;
  private readonly closeListeners: Array<(reason: string) => void> = [];

  constructor(
    readonly id: number,
    private readonly env: Env,
    private readonly recording: RecordingOptions,
    private readonly stats: ServerStats,
    private readonly clock: () => number,
    /** Longer actions are refused as invalid before they reach the env (see `step`). */
    private readonly maxActionChars = DEFAULT_MAX_ACTION_CHARS,
  ) {
    this.lastActive = clock();
  }

  /** Marks the session active now (a request came for it). */
  touch(): void {
    this.lastActive = this.clock();
  }

  /** True while a call is queued or running: such a session is never idle. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /**
   * Starts an episode; `episodeId` names it (and its recorded trajectory), else a UUID does. An
   * unfinished episode before it is reported abandoned.
   */
  reset(options: ResetOptions, episodeId?: string): Promise<EpisodeStatus> {
    return this.exclusive(async () => {
      await this.abandon('reset by the client before it ended');
      const { observation, info } = await this.env.reset(options);
      this.checkNotDiscarding();
      this.episode = {
        id: episodeId ?? randomUUID(),
        task: info.task,
        seed: options.seed,
        initial: observation,
        current: observation,
        steps: [],
        stepCount: 0,
        totalReward: 0,
        startedAt: new Date().toISOString(),
        ended: undefined,
        lastInfo: {},
      };
      this.stats.episodesStarted++;
      return this.statusOf(this.episode);
    });
  }

  /**
   * Applies one action; an invalid one comes back as the env says (state unchanged, reward 0).
   * An action over the length limit is invalid without reaching the env, and is recorded cut to
   * the limit, never whole.
   */
  step(sent: string): Promise<StepResult> {
    return this.exclusive(async () => {
      const episode = this.requireEpisode();
      if (episode.ended) {
        throw new EpisodePhaseError(
          `session ${this.id}: the episode ${episode.ended} after ${episode.stepCount} steps; reset the session to start another.`,
        );
      }
      const overlong = overlongAction(sent, this.maxActionChars, '--max-action-chars');
      const action = overlong ? sent.slice(0, this.maxActionChars) : sent;
      const started = performance.now();
      const result = overlong
        ? refusedStep(episode.current, overlong)
        : await this.env.step(action);
      this.checkNotDiscarding();
      this.recording.onStepTimed?.((performance.now() - started) / 1000, result);
      const state = episode.current;
      if (this.recording.onEpisode || this.recording.onAbandoned) {
        episode.steps.push({
          action,
          observation: result.observation,
          reward: result.reward,
          terminated: result.terminated,
          truncated: result.truncated,
          info: result.info,
        });
      }
      episode.stepCount++;
      episode.totalReward += result.reward;
      episode.current = result.observation;
      episode.lastInfo = result.info;
      if (result.terminated) episode.ended = 'terminated';
      else if (result.truncated) episode.ended = 'truncated';
      this.stats.steps++;
      if (episode.ended) this.stats.episodesFinished++;
      await this.report(episode, state, action, result);
      return result;
    });
  }

  /** The current episode, or a 409 saying to reset first. */
  status(): EpisodeStatus {
    return this.statusOf(this.requireEpisode());
  }

  /** The current episode, if the session has one. */
  peek(): EpisodeStatus | undefined {
    return this.episode && this.statusOf(this.episode);
  }

  /** Calls `listener` once when the session closes, with why (e.g. reaped when idle). */
  onClose(listener: (reason: string) => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * Closes the env after queued calls finish, reporting an unfinished episode abandoned with
   * `reason`. Idempotent.
   */
  close(reason: string): Promise<void> {
    if (this.closed) return this.tail.then(() => undefined);
    this.closed = true;
    for (const listener of this.closeListeners) listener(reason);
    return this.exclusive(async () => {
      await this.abandon(reason);
      await this.env.close();
    });
  }

  /**
   * Reports the unfinished episode abandoned now, without waiting for the call under way (a step
   * held up by a slow LLM, say), whose result is then discarded: how a server that shuts down
   * records its open episodes within its drain timeout. Close the session too ({@link close}: its
   * env closes once that call returns).
   */
  async abandonNow(reason: string): Promise<void> {
    this.discarding = true;
    await this.abandon(reason);
  }

  private checkNotDiscarding(): void {
    if (this.discarding) {
      throw new EpisodePhaseError(
        `session ${this.id} was closed while this call ran (the server is shutting down); its episode was recorded as abandoned. Open a new session.`,
      );
    }
  }

  /** Reports the current episode abandoned if it started and has not ended; at most once. */
  private async abandon(reason: string): Promise<void> {
    const episode = this.episode;
    if (!episode || episode.ended) return;
    episode.ended = 'truncated';
    this.stats.episodesAbandoned++;
    const { onAbandoned, provenance, policyId, warn } = this.recording;
    if (!onAbandoned) return;
    const steps = [...episode.steps];
    const last = steps.at(-1);
    if (last) {
      steps[steps.length - 1] = {
        ...last,
        truncated: true,
        info: { ...last.info, truncatedBy: 'abandoned', abandoned: reason },
      };
    }
    try {
      await onAbandoned(
        {
          id: episode.id,
          env: this.env.name,
          task: episode.task,
          initial: episode.initial,
          steps,
          provenance,
          policyId,
          ...(episode.seed !== undefined && { seed: episode.seed }),
          startedAt: episode.startedAt,
          endedAt: new Date().toISOString(),
        },
        reason,
      );
    } catch (error) {
      warn(
        `session ${this.id}: recording the abandoned episode ${episode.id} failed (${(error as Error).message}).`,
      );
    }
  }

  private requireEpisode(): Episode {
    if (!this.episode) {
      throw new EpisodePhaseError(
        `session ${this.id} has no episode yet: reset it before stepping or reading its state.`,
      );
    }
    return this.episode;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    this.lastActive = this.clock();
    const run = this.tail.then(work).finally(() => {
      this.pending--;
      this.lastActive = this.clock();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private statusOf(episode: Episode): EpisodeStatus {
    return {
      episodeId: episode.id,
      task: episode.task,
      observation: episode.current,
      stepCount: episode.stepCount,
      totalReward: episode.totalReward,
      terminated: episode.ended === 'terminated',
      truncated: episode.ended === 'truncated',
      lastInfo: episode.lastInfo,
    };
  }

  private async report(
    episode: Episode,
    state: Observation,
    action: string,
    result: StepResult,
  ): Promise<void> {
    const { onTransition, onEpisode, provenance, policyId, warn } = this.recording;
    // Read before awaiting: an abandonNow meanwhile ends the episode, and reports it itself.
    const ended = episode.ended;
    try {
      await onTransition?.({
        task: episode.task,
        t: episode.stepCount - 1,
        state,
        action,
        nextState: result.observation,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
      });
      if (!ended) return;
      await onEpisode?.({
        id: episode.id,
        env: this.env.name,
        task: episode.task,
        initial: episode.initial,
        steps: episode.steps,
        provenance,
        policyId,
        ...(episode.seed !== undefined && { seed: episode.seed }),
        startedAt: episode.startedAt,
        endedAt: new Date().toISOString(),
      });
    } catch (error) {
      warn(
        `session ${this.id}: recording failed (${(error as Error).message}); the step was served but episode ${episode.id} may be missing from the record.`,
      );
    }
  }
}

/** The step of a refused action: nothing changes, reward 0, and `info` says why. */
function refusedStep(current: Observation, why: string): StepResult {
  return {
    observation: current,
    reward: 0,
    terminated: false,
    truncated: false,
    info: { invalidAction: why },
  };
}
