import type { Rng } from '../core/rng.ts';
import type { Observation, Step, StepInfo, Task } from '../core/types.ts';
import type { QualityLens } from './quality-lens.ts';

/**
 * The environment contract: async and Gymnasium-shaped, with named fields instead of tuples.
 *
 * - `reset({ task, seed })` starts an episode. With a `task`, the env builds that task's episode
 *   (from `task.spec`); without one it draws a task from its own task set using `seed`. The same
 *   task and seed always give the same episode.
 * - `step(action)` applies one text action. An action that is not admissible never throws: the
 *   state does not change, the reward is 0 and `info.invalidAction` says why.
 * - `terminated` means the task itself ended (a purchase, a goal reached or failed for good).
 *   `truncated` means the episode was cut off from outside (step limit, model failure); the state
 *   could have gone on, so value bootstrapping must still use it. The two are never merged.
 * - Stepping after either is an {@link EpisodeEndedError}; stepping before `reset` an
 *   {@link EnvNotResetError}; using a closed env an {@link EnvClosedError}.
 * - `close()` frees resources and may be called any number of times.
 */
export interface Env {
  /** Env family, e.g. `webshop`. Tasks with another `env` are refused. */
  readonly name: string;
  /** Starts an episode: the given task, or one drawn from the env's tasks by `seed`. */
  reset(options?: ResetOptions): Promise<ResetResult>;
  /**
   * Takes one action. An invalid action changes nothing, earns 0 and says why in
   * `info.invalidAction`.
   */
  step(action: string): Promise<StepResult>;
  /** Frees what the env holds; idempotent. A closed env refuses to run. */
  close(): Promise<void>;
}

/** What `Env.reset` may be told: the task to run, or a seed to draw one. */
export interface ResetOptions {
  task?: Task;
  seed?: number;
  /**
   * Start in the middle of a recorded real episode instead of at a task's start: its task, its
   * state before step `from.step`, and its steps before that as this episode's history. Only an
   * env that can start anywhere honours it (a synthetic env, from its replay buffer); a real env
   * cannot be put back into a recorded state. Not with `task`.
   */
  from?: BranchPoint;
}

/**
 * A state of a recorded episode to start from: the state before step `step` (0-based) of the
 * buffer's trajectory `trajectory`; step 0 is the episode's start.
 */
export interface BranchPoint {
  /** The stored trajectory's id. */
  trajectory: string;
  /** How many of its steps have been taken; the state before this step is where to start. */
  step: number;
}

/** The first observation of an episode and its task. */
export interface ResetResult {
  observation: Observation;
  info: ResetInfo;
}

/** What `reset` says besides the observation: the episode's task. */
export interface ResetInfo {
  /** The task this episode runs. */
  task: Task;
  /** Where an episode started with `reset({ from })` branched from. */
  branchedFrom?: BranchPoint;
  /** For an episode started with `reset({ from })`: the recorded steps before the branch. */
  history?: Step[];
  [key: string]: unknown;
}

/**
 * The outcome of one step, Gymnasium-shaped: `terminated` is the task's own end, `truncated` an
 * outside cut-off.
 */
export interface StepResult {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: StepInfo;
}

/** Where an env's tasks come from: a fixed, seeded set per split. */
export interface TaskSource {
  /** The first `count` tasks of a split, in a fixed order. */
  tasks(split: TaskSplit, count?: number): Task[];
}

/** A task split: train tasks for learning, test tasks held out for evaluation. */
export type TaskSplit = 'train' | 'test';

/** Options every built-in env understands; each env reads the ones that apply to it. */
export interface EnvOptions {
  split?: 'train' | 'test';
  maxSteps?: number;
  catalogSeed?: number;
  catalogSize?: number;
  /**
   * Envs whose observations come from a server (MCP, OpenEnv, AgentGym): the longest observation
   * text kept, in characters (see `ObservationLimit`). Default 20,000.
   */
  maxObservationChars?: number;
}

/**
 * An env's recipe: how to make it and its task splits, and optionally a scripted expert and a
 * quality lens. The built-ins are entries; so is a user's module (`--env ./my-env.ts` exports one),
 * an OpenEnv, AgentGym or MCP server, and WebArena configs: every command takes any of them.
 */
export interface EnvEntry {
  /**
   * The env family its envs report as `Env.name` and its tasks carry as `Task.env` (what the
   * replay buffer files episodes under). Built-ins are named by the registry; a user's module
   * should set it (else it is read from a made env's `name`).
   */
  name?: string;
  description: string;
  /** The step limit `make` applies unless `options.maxSteps` says otherwise. */
  maxSteps: number;
  /** A fresh env with its default step limit. */
  make(options: EnvOptions): Env;
  /** The env's seeded task splits. */
  tasks(options: EnvOptions): TaskSource;
  /**
   * Set for envs on a remote server: scripted experts read each task's hidden goal, which such a
   * server does not expose, so they cannot play there.
   */
  remote?: boolean;
  /**
   * A scripted expert, for collecting offline data (`collect --policy expert`); optional: offline
   * data may come from a file, a random or saved policy, or an LLM instead. `epsilon` is its
   * mistake rate.
   */
  expert?: (options: { epsilon: number }) => EnvExpert;
  /** How the quality proxies read this env's observations (`dreamgym quality`); optional. */
  lens?: QualityLens;
  /**
   * The signatures of the tools the agent may call, one a line (`name(arg: type, opt?: type):
   * what it does`), for describing the env to an LLM experience model; optional (an MCP
   * server's envs have them, read from the server).
   */
  tools?: () => Promise<string[]>;
}

/**
 * What a scripted expert is: dreamgym's `Policy` contract, restated here because envs sit below
 * policies (any `Policy` fits). It may read `context.task.spec`, the hidden goal, which is why
 * experts cannot play remote envs.
 */
export interface EnvExpert {
  /** Recorded as the trajectory's `policyId`, e.g. `expert(eps=0.3)`. */
  readonly id: string;
  /** The next action for the observation. */
  act(
    observation: Observation,
    context: { task: Task; history: readonly Step[]; rng: Rng },
  ): Promise<{ action: string; reasoning?: string }>;
}
