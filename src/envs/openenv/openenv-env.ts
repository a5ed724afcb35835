import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { withRetries } from '../../core/retry.ts';
import { copyObservation, type Observation } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSplit } from '../env.ts';
import { type ActionCodec, actionCodec } from './action-codec.ts';
import { readAnswer } from './answers.ts';
import { OpenEnvCapacityError, OpenEnvConnectionError } from './errors.ts';
import { HttpTransport } from './http-transport.ts';
import type { OpenEnvAnswer } from './protocol.ts';
import { OPENENV_FAMILY, serverRoot } from './ref.ts';
import { fetchActionSchema } from './schema.ts';
import { OpenEnvTaskSource, resetKeywords, type SeedRange } from './tasks.ts';
import {
  DEFAULT_CLIENT_OPTIONS,
  type OpenEnvClientOptions,
  type OpenEnvTransport,
  type TransportKind,
} from './transport.ts';
import { WebSocketTransport } from './ws-transport.ts';

/** How to reach an OpenEnv server and which of its tasks to run. */
export interface OpenEnvEnvOptions {
  /** The server's root URL, `http(s)://` or `ws(s)://`, e.g. `http://127.0.0.1:8000`. */
  url: string;
  /** The env family (`Env.name`, `Task.env`). Default `openenv`. */
  family?: string;
  /** Default `websocket`; see {@link TransportKind} for when `http` fits. */
  transport?: TransportKind;
  /** Split that `reset({ seed })` draws from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** Seed ranges of the splits; default `OPENENV_SPLITS` (train seeds 0–999, test 1000–1199). */
  splits?: Partial<Record<TaskSplit, SeedRange>>;
  /** Time limits and retries. */
  client?: Partial<OpenEnvClientOptions>;
}

/**
 * Any OpenEnv server as a dreamgym {@link Env}. Nothing is contacted before the first `reset`,
 * which reads the server's action schema (`GET /schema`, once) and opens a session (one
 * WebSocket connection, kept for later resets until `close()`).
 *
 * - A task is the server's reset keywords (`task.spec`, e.g. `{ seed: 3 }`, see `tasks.ts`).
 * - A text action becomes the server's action object as `action-codec.ts` says; text that cannot
 *   be one, and an action the server rejects as malformed (`VALIDATION_ERROR`, HTTP 422), is an
 *   invalid action: state unchanged, reward 0, `info.invalidAction` says why.
 * - The server's observation becomes `{ text, instruction, actions }` as `answers.ts` says.
 * - A full server is retried a few times (a session just closed may still be freeing), then is
 *   an `OpenEnvCapacityError`. A lost connection or a server that does not answer in time is an
 *   `OpenEnvConnectionError`; the episode is then lost (the server may or may not have stepped)
 *   and the next `reset` opens a new session. The env's own failures are `OpenEnvServerError`s.
 */
export class OpenEnvEnv implements Env {
  readonly name: string;
  /** The server's root, `http(s)://…`. */
  readonly url: string;
  readonly transportKind: TransportKind;
  readonly taskSource: OpenEnvTaskSource;
  readonly options: OpenEnvClientOptions;
  private readonly server: string;
  private readonly split: TaskSplit;
  private transport: OpenEnvTransport | undefined;
  private codec: ActionCodec | undefined;
  private current: Observation | undefined;
  private ended: 'terminated' | 'truncated' | undefined;
  private closed = false;

  constructor(options: OpenEnvEnvOptions) {
    this.name = options.family ?? OPENENV_FAMILY;
    this.url = serverRoot(options.url);
    this.transportKind = options.transport ?? 'websocket';
    this.taskSource = new OpenEnvTaskSource(this.name, options.splits);
    this.options = { ...DEFAULT_CLIENT_OPTIONS, ...options.client };
    this.server = `OpenEnv server at ${this.url}`;
    this.split = options.split ?? 'train';
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.taskSource.draw(this.split, options.seed ?? 0);
    const kwargs = resetKeywords(task, this.name);
    this.current = undefined;
    this.ended = undefined;
    this.codec ??= actionCodec(
      await fetchActionSchema(this.url, this.server, this.options.messageTimeoutMs),
    );
    const { observation, info } = readAnswer(await this.resetOnServer(kwargs), '');
    this.current = observation;
    return {
      observation: copyObservation(observation),
      info: {
        ...(info.metadata !== undefined && { metadata: info.metadata }),
        task: { ...task, instruction: observation.instruction },
      },
    };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, this.ended);
    const { current, transport, codec } = this;
    if (!current || !transport || !codec) throw new EnvNotResetError(this.name);
    const encoded = codec.encode(action);
    if ('invalid' in encoded) return refused(current, encoded.invalid);
    this.current = undefined;
    const outcome = await this.guard(transport.step(encoded.action));
    if ('rejected' in outcome) {
      this.current = current;
      return refused(current, outcome.rejected);
    }
    const result = readAnswer(outcome, current.instruction);
    this.current = result.observation;
    if (result.terminated) this.ended = 'terminated';
    else if (result.truncated) this.ended = 'truncated';
    return { ...result, observation: copyObservation(result.observation) };
  }

  /**
   * The server's state of the current episode (OpenEnv's `state`: `episode_id`, `step_count`
   * and the env's own fields). Over HTTP, whatever state the server's `GET /state` reports.
   */
  async state(): Promise<Record<string, unknown>> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.transport) throw new EnvNotResetError(this.name);
    return this.guard(this.transport.state());
  }

  /** Ends the server session (the WebSocket's `close`); idempotent, never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current = undefined;
    await this.dropTransport();
  }

  /** Resets on the open session, or opens one, retrying while the server is full. */
  private async resetOnServer(kwargs: Record<string, unknown>): Promise<OpenEnvAnswer> {
    const open = this.transport;
    if (open) return this.guard(open.reset(kwargs));
    const { capacityRetries, backoffMs } = this.options;
    return withRetries(
      () => {
        const transport = this.openTransport();
        this.transport = transport;
        return this.guard(transport.reset(kwargs));
      },
      { maxRetries: capacityRetries, initialDelayMs: backoffMs, maxDelayMs: 10_000 },
      { retryable: (error) => error instanceof OpenEnvCapacityError },
    );
  }

  private openTransport(): OpenEnvTransport {
    return this.transportKind === 'http'
      ? new HttpTransport(this.url, this.server, this.options)
      : new WebSocketTransport(this.url, this.server, this.options);
  }

  /** Awaits a call; a session that was lost or refused is dropped, for the next reset to replace. */
  private async guard<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof OpenEnvConnectionError || error instanceof OpenEnvCapacityError) {
        await this.dropTransport();
      }
      throw error;
    }
  }

  private async dropTransport(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    await transport?.close();
  }
}

/** An invalid action's result: the state as it was, reward 0, and why. */
function refused(current: Observation, why: string): StepResult {
  return {
    observation: copyObservation(current),
    reward: 0,
    terminated: false,
    truncated: false,
    info: { invalidAction: why },
  };
}
