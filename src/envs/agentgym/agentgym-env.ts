import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import type { Observation } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSplit } from '../env.ts';
import { AgentGymHttpError } from './errors.ts';
import { type HttpOptions, JsonHttpClient } from './http.ts';
import { trackSession, untrackSession } from './open-sessions.ts';
import { AgentGymTaskSource, agentgymFamily, agentgymTaskIndex, type IndexRange } from './tasks.ts';

export interface AgentGymEnvOptions {
  /** Root URL of the AgentGym server, e.g. `http://127.0.0.1:36001`. */
  url: string;
  /** Split that `reset({ seed })` draws from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** Task index ranges of the splits; default {@link AGENTGYM_SPLITS}, or {@link GENERIC_SPLITS}. */
  splits?: Partial<Record<TaskSplit, IndexRange>>;
  /** Time limit and retries of each request. */
  http?: Partial<HttpOptions>;
}

/** Why an action is not admissible; the state stays as it was. */
export interface Refusal {
  invalid: string;
}

/** What one step did on the server, or why the action was refused. */
export type Outcome = StepResult | Refusal;

/** An episode as the server started it; `info` adds server facts (e.g. ALFWorld's task type). */
export interface ServedEpisode {
  observation: Observation;
  info?: Record<string, unknown>;
}

/**
 * The {@link Env} lifecycle shared by the AgentGym clients; subclasses speak one server's
 * protocol. The server session is created at the first `reset` and reused by later ones; it is
 * closed by `close()` or, failing that, when the process ends (see `open-sessions.ts`).
 *
 * Our contract, not the server's, decides what an invalid action does: subclasses refuse
 * inadmissible actions before sending them (the last observation's `actions`), and map the
 * server's own "nothing happened" answers to a {@link Refusal}.
 *
 * If a step's request fails (timeout, lost connection), the server may or may not have stepped,
 * so the episode is dropped: the next `step` asks for a `reset`.
 */
export abstract class AgentGymEnv implements Env {
  readonly name: string;
  readonly url: string;
  readonly taskSource: AgentGymTaskSource;
  protected readonly http: JsonHttpClient;
  private readonly split: TaskSplit;
  private session: number | undefined;
  private current: Observation | undefined;
  private ended: 'terminated' | 'truncated' | undefined;
  private closed = false;
  private readonly closeOnExit = () => this.close();

  /** `server` names the server's env, e.g. `webshop`; the env family is `agentgym:<server>`. */
  constructor(
    readonly server: string,
    options: AgentGymEnvOptions,
  ) {
    this.name = agentgymFamily(server);
    this.http = new JsonHttpClient(options.url, `AgentGym ${server} server`, options.http);
    this.url = this.http.baseUrl;
    this.taskSource = new AgentGymTaskSource(server, options.splits);
    this.split = options.split ?? 'train';
  }

  /** Creates a server session and returns its id. */
  protected abstract createSession(): Promise<number>;
  /** Starts task `index` in the session. */
  protected abstract resetSession(session: number, index: number): Promise<ServedEpisode>;
  /** Applies `action` in the state `current`, or refuses it. */
  protected abstract act(session: number, action: string, current: Observation): Promise<Outcome>;
  /** Closes the session on the server. */
  protected abstract closeSession(session: number): Promise<void>;

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.taskSource.draw(this.split, options.seed ?? 0);
    const index = agentgymTaskIndex(task, this.server);
    this.current = undefined;
    this.ended = undefined;
    this.session ??= await this.openSession();
    const { observation, info } = await this.resetSession(this.session, index);
    this.current = observation;
    return {
      observation: copy(observation),
      info: {
        ...info,
        task: { ...task, instruction: observation.instruction },
        session: this.session,
      },
    };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, this.ended);
    const current = this.current;
    if (!current || this.session === undefined) throw new EnvNotResetError(this.name);
    this.current = undefined;
    const outcome = await this.act(this.session, action, current);
    if ('invalid' in outcome) {
      this.current = current;
      return {
        observation: copy(current),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: outcome.invalid },
      };
    }
    this.current = outcome.observation;
    if (outcome.terminated) this.ended = 'terminated';
    else if (outcome.truncated) this.ended = 'truncated';
    return { ...outcome, observation: copy(outcome.observation) };
  }

  /**
   * Closes the server session. Never throws: a server that is already gone cannot be told, so a
   * failure comes back as a process warning saying the session may stay open.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current = undefined;
    const session = this.session;
    this.session = undefined;
    untrackSession(this.closeOnExit);
    if (session === undefined) return;
    try {
      await this.closeSession(session);
    } catch (error) {
      // AgentGym's older servers have no /close endpoint: nothing to close there.
      if (error instanceof AgentGymHttpError && error.status === 404) return;
      process.emitWarning(
        `${(error as Error).message} Session ${session} may stay open on the server.`,
        'AgentGymCloseWarning',
      );
    }
  }

  private async openSession(): Promise<number> {
    const session = await this.createSession();
    trackSession(this.closeOnExit);
    return session;
  }
}

function copy(observation: Observation): Observation {
  return { ...observation, actions: [...(observation.actions ?? [])] };
}
