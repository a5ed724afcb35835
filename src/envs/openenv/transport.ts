import { DEFAULT_SERVER_TIMEOUT_MS } from '../client-settings.ts';
import type { OpenEnvAnswer, Rejection } from './protocol.ts';

/**
 * How the client reaches the server. `websocket` (the default, as OpenEnv's `EnvClient` does):
 * `/ws`, one server session per connection, episodes kept on the server. `http`: `POST /reset`,
 * `POST /step`, `GET /state`; OpenEnv's own HTTP endpoints are stateless (each request makes and
 * closes a fresh env, so a step never sees the reset before it), which leaves `http` for servers
 * that keep an episode between HTTP requests, such as dreamgym's own `serve` (one shared session)
 * and OpenEnv servers from before it had WebSocket sessions.
 */
export type TransportKind = 'websocket' | 'http';

/** Time limits and retries of the client; every one has a default. */
export interface OpenEnvClientOptions {
  /** Time to open a WebSocket or get HTTP headers. Default 10 s, OpenEnv's `connect_timeout_s`. */
  connectTimeoutMs: number;
  /**
   * Time to wait for one answer (a reset may build a whole scene). Default 30 s (OpenEnv's
   * `message_timeout_s` is 60 s), or `#timeout=SECONDS` on the env ref. Past it the connection
   * is dropped with an error, never left hanging.
   */
  messageTimeoutMs: number;
  /**
   * Further attempts to open a session when the server is full: a session another env just
   * closed may still be freeing. Default 3.
   */
  capacityRetries: number;
  /** Wait before the first such retry, doubled each time (with jitter). Default 250 ms. */
  backoffMs: number;
  /** Largest message accepted. Default 100 MB, OpenEnv's `max_message_size_mb`. */
  maxMessageBytes: number;
}

/** The defaults of {@link OpenEnvClientOptions}. */
export const DEFAULT_CLIENT_OPTIONS: OpenEnvClientOptions = {
  connectTimeoutMs: 10_000,
  messageTimeoutMs: DEFAULT_SERVER_TIMEOUT_MS,
  capacityRetries: 3,
  backoffMs: 250,
  maxMessageBytes: 100 * 1024 * 1024,
};

/**
 * One client's line to an OpenEnv server: OpenEnv's three verbs, answers checked against the
 * protocol. Failures are `OpenEnvError`s; an action the server rejects as malformed (before
 * stepping: the state did not change) comes back as a {@link Rejection}.
 */
export interface OpenEnvTransport {
  /** Starts an episode with OpenEnv's reset keywords (`seed`, `episode_id`, the env's own). */
  reset(kwargs: Record<string, unknown>): Promise<OpenEnvAnswer>;
  /** Applies one action object, shaped as the server's action schema says. */
  step(action: Record<string, unknown>): Promise<OpenEnvAnswer | Rejection>;
  /** The server's state of the episode (`episode_id`, `step_count`, the env's own fields). */
  state(): Promise<Record<string, unknown>>;
  /** Ends the session; never throws. */
  close(): Promise<void>;
}
