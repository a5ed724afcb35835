import { DEFAULT_MAX_ACTION_CHARS, overlongAction, quoteAction } from '../core/action-limit.ts';
import { EnvClosedError, EnvNotResetError, EpisodeEndedError, TaskError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import {
  copyObservation,
  isActionTemplate,
  type Observation,
  type Step,
  type StepInfo,
  type Task,
} from '../core/types.ts';
import type {
  BranchPoint,
  Env,
  ResetOptions,
  ResetResult,
  StepResult,
  TaskSource,
} from '../envs/env.ts';
import type { RetrieveFilter } from '../replay/filter-index.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import { type RetrievedTransition, stepOf } from '../replay/stored-transition.ts';
import type { TransitionKey } from '../replay/transition-encoder.ts';
import type { ExperienceModel, ExperiencePrediction } from './experience-model.ts';

/**
 * What a synthetic env runs on: the experience model, the buffer its demonstrations come from, and
 * how many per step.
 */
export interface SyntheticEnvOptions {
  /** Env family the experience is about (`webshop`); tasks of other families are refused. */
  env: string;
  model: ExperienceModel;
  /**
   * Where demonstrations come from. To store the synthetic episodes there too, wrap the env in
   * `RecordEpisodes` outside its `TimeLimit` (so episodes the limit cuts off are stored as well).
   */
  buffer: ReplayBuffer;
  /** Tasks for `reset({ seed })` without a task: drawn from its train split. */
  tasks?: TaskSource;
  /** Demonstrations retrieved per step. Default 4. */
  k?: number;
  /** Which transitions may be demonstrations. Default: real ones of this env. */
  demonstrations?: RetrieveFilter;
  /**
   * Share of the k demonstrations that are real when synthetic ones are mixed in (the buffer
   * co-evolving with the policy): round(k · realShare) real ones, the rest the nearest synthetic
   * transitions of this env, fewer real ones filling in when there are not enough synthetic
   * ones. Default 1: real demonstrations only. Not with `demonstrations`.
   */
  realShare?: number;
  /** Show the model the episode's history (off for the no-history ablation). Default true. */
  history?: boolean;
  /**
   * Longest action, in characters, shown to the model; a longer one is refused as invalid
   * without asking it. Default 2,000 (`DEFAULT_MAX_ACTION_CHARS`).
   */
  maxActionChars?: number;
}

/**
 * DreamGym's synthetic environment: the Env contract over an experience model. Each step
 * retrieves the k most similar real transitions from the replay buffer and asks the model for the
 * next state, reward and termination (a model that learnt the buffer beforehand and reads no
 * demonstrations, `readsDemonstrations: false` as the LLM-free ones, gets none). Inadmissible
 * actions are refused here, as in a real env, without asking the model; a model failure
 * truncates the episode (`truncatedBy: 'model-error'`). No step limit of its own: wrap it in
 * `TimeLimit` like the real env.
 */
export class SyntheticEnv implements Env {
  readonly name: string;
  /** Steps taken in this env since it was made (synthetic interactions). */
  steps = 0;
  private task: Task | undefined;
  private initial: Observation | undefined;
  private state: Observation | undefined;
  private history: Step[] = [];
  private ended: 'terminated' | 'truncated' | undefined;
  private closed = false;

  constructor(private readonly options: SyntheticEnvOptions) {
    this.name = options.env;
    const share = options.realShare ?? 1;
    if (!(share >= 0 && share <= 1)) {
      throw new RangeError(`realShare must be between 0 and 1, got ${options.realShare}.`);
    }
    if (options.realShare !== undefined && options.demonstrations) {
      throw new RangeError('pass either demonstrations (a filter) or realShare, not both.');
    }
  }

  async reset({ task, seed, from }: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (from) {
      if (task) throw new TaskError('reset: pass either a task or a real state to start from.');
      return this.branch(from);
    }
    const chosen = task ?? this.draw(seed ?? 0);
    if (chosen.env !== this.name)
      throw new TaskError(`task ${chosen.id} is for env "${chosen.env}", not "${this.name}".`);
    const starts = await this.demonstrations({
      state: { text: chosen.instruction },
      action: '',
      task: chosen,
    });
    const observation = await this.options.model.initial(chosen, starts);
    this.begin(chosen, observation, []);
    return { observation: copyObservation(observation), info: { task: chosen, synthetic: true } };
  }

  /**
   * Starts in a real episode's state before its step `from.step`, with its task and its steps
   * before as this episode's history: what no real env can do (MBPO's branched rollouts).
   */
  private async branch(from: BranchPoint): Promise<ResetResult> {
    const { trajectory, step } = from;
    const where = `trajectory ${trajectory} at step ${step}`;
    if (!Number.isInteger(step) || step < 0) {
      throw new TaskError(`reset from ${where}: the step must be a whole number from 0.`);
    }
    const recorded = await this.options.buffer.trajectoryTransitions(trajectory);
    const first = recorded[0];
    if (!first) {
      throw new TaskError(
        `reset from ${where}: the buffer holds no steps of trajectory ${trajectory}; give the id of a real episode in it (\`dreamgym buffer stats\`).`,
      );
    }
    if (first.task.env !== this.name) {
      throw new TaskError(
        `reset from ${where}: it is an episode of env "${first.task.env}", not "${this.name}".`,
      );
    }
    if (first.provenance === 'synthetic') {
      throw new TaskError(
        `reset from ${where}: it is a synthetic episode; branch from real ones (real-offline or real-online).`,
      );
    }
    // The state after a step that terminated the episode is not one to act in.
    const terminal = recorded.findIndex((t) => t.terminated);
    const last = terminal === -1 ? recorded.length : terminal;
    if (step > last) {
      const ending = terminal === -1 ? '' : ', the last of which ended it';
      throw new TaskError(
        `reset from ${where}: it has ${recorded.length} steps${ending}; start from a step between 0 and ${last}.`,
      );
    }
    const history = recorded.slice(0, step).map(stepOf);
    const state = step === 0 ? first.state : (history[step - 1] as Step).observation;
    this.begin(first.task, first.state, history, state);
    return {
      observation: copyObservation(state),
      info: {
        task: first.task,
        synthetic: true,
        branchedFrom: { trajectory, step },
        history: history.map((s) => ({ ...s, observation: copyObservation(s.observation) })),
      },
    };
  }

  private begin(task: Task, initial: Observation, history: Step[], state = initial): void {
    this.task = task;
    this.initial = initial;
    this.state = state;
    this.history = history;
    this.ended = undefined;
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const { task, state } = this;
    if (!task || !state) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, this.ended);
    this.steps++;
    const max = this.options.maxActionChars ?? DEFAULT_MAX_ACTION_CHARS;
    const refusal =
      overlongAction(action, max, 'SyntheticEnv maxActionChars') ?? inadmissible(action, state);
    if (refusal) {
      return this.record(action.slice(0, max), {
        observation: copyObservation(state),
        reward: 0,
        terminated: false,
        truncated: false,
        // Refused as the real env refuses what it does not list: no doubt in what follows.
        info: { invalidAction: refusal, uncertainty: 0 },
      });
    }
    const demonstrations =
      this.options.model.readsDemonstrations === false
        ? []
        : await this.demonstrations({ state, action, task });
    try {
      const prediction = await this.options.model.predict({
        task,
        history: this.options.history === false ? [] : this.history,
        ...(this.options.history !== false && this.initial && { initial: this.initial }),
        state,
        action,
        demonstrations,
      });
      return this.record(
        action,
        {
          observation: prediction.nextState,
          reward: prediction.reward,
          terminated: prediction.terminated,
          truncated: false,
          info: {
            reasoning: prediction.reasoning,
            demonstrations: demonstrations.map((d) => `${d.trajectoryId}#${d.t}`),
            ...uncertaintyInfo(prediction),
          },
        },
        prediction.reasoning,
      );
    } catch (error) {
      return this.record(action, {
        observation: copyObservation(state),
        reward: 0,
        terminated: false,
        truncated: true,
        info: { truncatedBy: 'model-error', error: (error as Error).message, uncertainty: 1 },
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * The k most similar transitions the filter admits, or the real/synthetic mix `realShare`
   * asks for; none when k is 0 (the no-retrieval ablation).
   */
  private async demonstrations(key: TransitionKey): Promise<RetrievedTransition[]> {
    const share = this.options.realShare ?? 1;
    if (this.k === 0) return [];
    if (share === 1) return this.options.buffer.retrieve(key, this.k, this.filter);
    const { buffer } = this.options;
    const synthetic = await buffer.retrieve(key, this.k - Math.round(this.k * share), {
      env: this.name,
      provenance: 'synthetic',
    });
    const real = await buffer.retrieve(key, this.k - synthetic.length, this.filter);
    return [...real, ...synthetic].sort((a, b) => b.similarity - a.similarity);
  }

  private get k(): number {
    return this.options.k ?? 4;
  }

  private get filter(): RetrieveFilter {
    return (
      this.options.demonstrations ?? { env: this.name, provenance: ['real-offline', 'real-online'] }
    );
  }

  private draw(seed: number): Task {
    const tasks = this.options.tasks?.tasks('train');
    if (!tasks || tasks.length === 0) {
      throw new TaskError(
        `synthetic ${this.name}: reset({ seed }) needs a task source; pass a task to reset() instead.`,
      );
    }
    return new Rng(seed).fork('synthetic-task').pick(tasks);
  }

  private record(action: string, result: StepResult, reasoning?: string): StepResult {
    const step: Step = {
      action,
      observation: result.observation,
      reward: result.reward,
      terminated: result.terminated,
      truncated: result.truncated,
      info: result.info,
    };
    if (reasoning !== undefined) step.reasoning = reasoning;
    this.history.push(step);
    this.state = result.observation;
    if (result.terminated || result.truncated) {
      this.ended = result.terminated ? 'terminated' : 'truncated';
    }
    return { ...result, observation: copyObservation(result.observation) };
  }
}

/**
 * What a prediction says of its own doubt: an unjudged ending (uncertainty 1), else the model's
 * uncertainty clamped to [0, 1], when it gives one.
 */
function uncertaintyInfo(prediction: ExperiencePrediction): StepInfo {
  if (prediction.judged === false && prediction.terminated)
    return { unjudged: true, uncertainty: 1 };
  const u = prediction.uncertainty;
  if (u === undefined || Number.isNaN(u)) return {};
  return { uncertainty: Math.min(1, Math.max(0, u)) };
}

/**
 * Placeholders a real env accepts empty: WebArena's `stop []` (no answer: what a navigation or
 * change task expects) and `type [id] []` (clears the field). WebShop's `search[]` is refused.
 */
const OPTIONAL_VALUE = /\[<(answer|text)>\]/;

/** Why `action` is not admissible in `state`, or undefined when it is. */
export function inadmissible(action: string, state: Observation): string | undefined {
  if (action.trim().length === 0) return 'empty action.';
  const actions = state.actions;
  if (!actions) return undefined;
  const wanted = action.trim().toLowerCase();
  for (const a of actions) {
    if (isActionTemplate(a)) {
      const [before, after] = a.toLowerCase().split(/<[^<>]+>/) as [string, string];
      const least = OPTIONAL_VALUE.test(a) ? 0 : 1;
      if (
        wanted.startsWith(before) &&
        wanted.endsWith(after) &&
        wanted.length >= before.length + after.length + least
      )
        return undefined;
    } else if (a.toLowerCase() === wanted) return undefined;
  }
  return `${quoteAction(action)} is not an admissible action here.`;
}
