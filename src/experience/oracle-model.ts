import type { Observation, Task } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from './experience-model.ts';

/**
 * An ORACLE, for measurement only: an "experience model" that answers from a real env. It plays
 * the episode's history in the real env from the task's start, then the action, and reports
 * what the real env did (uncertainty 0). A synthetic env over it is the real env reached the
 * synthetic way: training in it gives the ceiling DreamGym would reach with a perfect model, so a
 * table can tell the loss from the model apart from the loss in training. It reads the real env
 * (its hidden state, catalog and code): never train a policy you report as DreamGym's on it.
 *
 * Episodes are rebuilt from `reset({ task, seed: 0 })`: meant for envs whose episode the task
 * fixes (the built-ins' tasks carry their scene in `spec`). One real env is kept and stepped on
 * while requests continue the episode it is in; any other request replays from the start.
 */
export class OracleExperienceModel implements ExperienceModel {
  readonly id = 'oracle';
  readonly readsDemonstrations = false;
  private env: Env | undefined;
  /** The task and actions the kept env has played. */
  private played: { task: Task; actions: string[] } | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly makeRealEnv: () => Env) {}

  async initial(task: Task): Promise<Observation> {
    const env = this.makeRealEnv();
    try {
      return (await env.reset({ task, seed: 0 })).observation;
    } finally {
      await env.close();
    }
  }

  predict(request: ExperienceRequest): Promise<ExperiencePrediction> {
    // One real env, so one request at a time: episodes played concurrently take turns.
    const answer = this.queue.then(() => this.answer(request));
    this.queue = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  }

  private async answer({
    task,
    history,
    action,
  }: ExperienceRequest): Promise<ExperiencePrediction> {
    const env = await this.at(
      task,
      history.map((s) => s.action),
    );
    const result = await env.step(action);
    (this.played as { actions: string[] }).actions.push(action);
    if (result.terminated || result.truncated) await this.drop();
    return {
      reasoning: 'oracle: what the real env did.',
      nextState: result.observation,
      reward: result.reward,
      terminated: result.terminated,
      uncertainty: 0,
    };
  }

  /** Closes the kept real env. */
  async close(): Promise<void> {
    await this.drop();
  }

  /** A real env that has played `actions` of `task` from its start. */
  private async at(task: Task, actions: readonly string[]): Promise<Env> {
    const played = this.played;
    const continues =
      this.env !== undefined &&
      played?.task.id === task.id &&
      played.actions.length === actions.length &&
      played.actions.every((a, i) => a === actions[i]);
    if (continues) return this.env as Env;
    await this.drop();
    const env = this.makeRealEnv();
    this.env = env;
    await env.reset({ task, seed: 0 });
    for (const a of actions) await env.step(a);
    this.played = { task, actions: [...actions] };
    return env;
  }

  private async drop(): Promise<void> {
    const env = this.env;
    this.env = undefined;
    this.played = undefined;
    await env?.close();
  }
}
