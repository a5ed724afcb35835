import type { IncomingMessage } from 'node:http';
import WebSocket, { type RawData } from 'ws';
import { quoteExcerpt } from '../../core/excerpt.ts';
import {
  MORE_TIME,
  type OpenEnvCallSite,
  OpenEnvCapacityError,
  OpenEnvConnectionError,
  type OpenEnvError,
  OpenEnvProtocolError,
  OpenEnvServerError,
} from './errors.ts';
import {
  describeRejection,
  EnvelopeSchema,
  ErrorDataSchema,
  type OpenEnvAnswer,
  parseAnswer,
  parseWith,
  type Rejection,
  type WsErrorCode,
} from './protocol.ts';
import type { OpenEnvClientOptions, OpenEnvTransport } from './transport.ts';

/** How long `close()` waits for the server to end the session before cutting the connection. */
const CLOSE_WAIT_MS = 2_000;

type Envelope = { type: string; data: Record<string, unknown> };

/**
 * OpenEnv's WebSocket session, as its `EnvClient` speaks it: connect to `ROOT/ws` (the server
 * makes one env for the connection), send `{ type: reset|step|state|close, data }`, read one
 * `{ type: observation|state|error, data }` per message, in order.
 *
 * - A full server accepts the connection, sends `CAPACITY_REACHED` and closes it: that answer is
 *   kept until the first request, which fails with an {@link OpenEnvCapacityError}.
 * - Every answer has a time limit; past it, or when the connection drops, the request fails with
 *   an {@link OpenEnvConnectionError} and the connection is given up (a late answer would be
 *   taken for the next one's). A `reset` on a connection that was lost opens a new session.
 * - `VALIDATION_ERROR` on a step is a rejected action (OpenEnv validates the action before
 *   stepping, so the state did not change).
 */
export class WebSocketTransport implements OpenEnvTransport {
  /** `ws(s)://ROOT/ws`. */
  readonly url: string;
  private socket: WebSocket | undefined;
  private closedBy: { code: number; reason: string } | undefined;
  /** Messages that came with no request waiting: a full server's refusal. */
  private readonly inbox: Envelope[] = [];
  private waiter:
    | { site: OpenEnvCallSite; resolve: (reply: Envelope) => void; reject: (error: Error) => void }
    | undefined;

  constructor(
    /** The server's root URL, `http(s)://…` without a trailing slash. */
    root: string,
    private readonly server: string,
    private readonly options: OpenEnvClientOptions,
  ) {
    this.url = `${root.replace(/^http/, 'ws')}/ws`;
  }

  async reset(kwargs: Record<string, unknown>): Promise<OpenEnvAnswer> {
    const site = this.site('reset');
    const reply = await this.request(site, { type: 'reset', data: kwargs });
    if (reply.type === 'error') throw replyError(site, reply.data);
    return parseAnswer(site, expectType(site, reply, 'observation'));
  }

  async step(action: Record<string, unknown>): Promise<OpenEnvAnswer | Rejection> {
    const site = this.site('step');
    const reply = await this.request(site, { type: 'step', data: action });
    if (reply.type === 'error') {
      const data = parseWith(site, ErrorDataSchema, reply.data);
      if (data.code === 'VALIDATION_ERROR') {
        return { rejected: describeRejection(data.message, data.errors) };
      }
      throw replyError(site, reply.data);
    }
    return parseAnswer(site, expectType(site, reply, 'observation'));
  }

  async state(): Promise<Record<string, unknown>> {
    const site = this.site('state');
    const reply = await this.request(site, { type: 'state' });
    if (reply.type === 'error') throw replyError(site, reply.data);
    return expectType(site, reply, 'state');
  }

  /** Asks the server to end the session and waits (briefly) until it has; never throws. */
  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, CLOSE_WAIT_MS);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (socket.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ type: 'close' }), (error) => error && socket.terminate());
      } else {
        socket.terminate();
      }
    });
  }

  private site(message: string): OpenEnvCallSite {
    return { server: this.server, call: `${message} over WebSocket` };
  }

  /** Sends one message and waits for its answer, opening the session first where needed. */
  private async request(
    site: OpenEnvCallSite,
    message: { type: string; data?: unknown },
  ): Promise<Envelope> {
    const lost = this.closedBy !== undefined && this.inbox.length === 0;
    if (!this.socket || (lost && message.type === 'reset')) await this.connect(site);
    const early = this.inbox.shift();
    if (early) return early;
    const socket = this.socket;
    if (this.closedBy || !socket) throw this.dropped(site);
    const reply = new Promise<Envelope>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        socket.terminate();
        reject(
          new OpenEnvConnectionError(
            site,
            `got no answer within ${this.options.messageTimeoutMs} ms; the connection was given up`,
            MORE_TIME,
          ),
        );
      }, this.options.messageTimeoutMs);
      this.waiter = {
        site,
        resolve: (answer) => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          this.waiter = undefined;
          reject(error);
        },
      };
    });
    // A send that fails finds the socket closing: its 'close' (with the server's code) or the
    // time limit settles the request.
    socket.send(JSON.stringify(message), () => {});
    return reply;
  }

  /**
   * Opens a new connection (a new server session) in place of the old one. Events of an old
   * socket that arrive late are ignored: only the current one speaks for the session.
   */
  private async connect(site: OpenEnvCallSite): Promise<void> {
    this.socket?.terminate();
    this.inbox.length = 0;
    this.closedBy = undefined;
    const socket = new WebSocket(this.url, {
      handshakeTimeout: this.options.connectTimeoutMs,
      maxPayload: this.options.maxMessageBytes,
    });
    this.socket = socket;
    // An 'error' without a listener would crash the process; each one is followed by 'close'.
    socket.on('error', () => {});
    // Listening before 'open': a full server's refusal can come in the same packet as the upgrade.
    socket.on('message', (data) => this.socket === socket && this.receive(socket, data));
    socket.on('close', (code, reason) => {
      if (this.socket !== socket) return;
      this.closedBy = { code, reason: reason.toString() };
      this.waiter?.reject(this.dropped(this.waiter.site));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('unexpected-response', (_request, response: IncomingMessage) => {
          response.resume();
          reject(this.refusedUpgrade(site, response.statusCode ?? 0));
        });
        socket.once('error', (error) => reject(this.unreachable(site, error)));
      });
    } catch (error) {
      this.socket = undefined;
      socket.terminate();
      throw error;
    }
  }

  /**
   * Hands a message to the request waiting for it, or keeps it for the next one. A message that
   * is not OpenEnv's fails the waiting request and gives the connection up: what follows could
   * not be matched to requests.
   */
  private receive(socket: WebSocket, data: RawData): void {
    const text = data.toString();
    const waiter = this.waiter;
    let envelope: Envelope;
    try {
      envelope = EnvelopeSchema.parse(JSON.parse(text));
    } catch {
      socket.terminate();
      const site = waiter?.site ?? this.site('message');
      waiter?.reject(
        new OpenEnvProtocolError(site, `a message that is not OpenEnv's: ${quoteExcerpt(text)}`),
      );
      return;
    }
    if (waiter) waiter.resolve(envelope);
    else this.inbox.push(envelope);
  }

  private dropped(site: OpenEnvCallSite): OpenEnvConnectionError {
    const closed = this.closedBy;
    const how = closed
      ? ` (WebSocket closed with code ${closed.code}${closed.reason ? `: ${closed.reason}` : ''})`
      : '';
    return new OpenEnvConnectionError(
      site,
      `lost the connection to the server${how}; the episode in progress is lost`,
      'The server stopped, restarted, or ended the session (an idle timeout?): check that it is running, then reset to open a new session.',
    );
  }

  private unreachable(site: OpenEnvCallSite, error: Error): OpenEnvConnectionError {
    const code = (error as NodeJS.ErrnoException).code;
    const timedOut = /handshake has timed out/i.test(error.message);
    return new OpenEnvConnectionError(
      site,
      timedOut
        ? `could not open ${this.url} within ${this.options.connectTimeoutMs} ms`
        : `could not connect to ${this.url} (${code ?? error.message})`,
      'Check that the OpenEnv server is running and listening at that URL, or allow more time with the connectTimeoutMs option.',
    );
  }

  private refusedUpgrade(site: OpenEnvCallSite, status: number): OpenEnvConnectionError {
    const fix =
      status === 404 || status === 405
        ? "The URL must be the server's root, under which OpenEnv serves /ws (for dreamgym serve, http://HOST:PORT/openenv)."
        : status === 401 || status === 403
          ? 'The server wants credentials, which OpenEnv clients do not send (OpenEnv has no authentication): serve it without a token for this client.'
          : "See the server's log; a server from before OpenEnv had WebSocket sessions speaks HTTP only: use openenv+http@URL.";
    return new OpenEnvConnectionError(
      site,
      `${this.url} answered HTTP ${status} instead of opening a WebSocket`,
      fix,
    );
  }
}

/** The `data` of a reply that must be of `type`; another type breaks the protocol. */
function expectType(site: OpenEnvCallSite, reply: Envelope, type: string): Record<string, unknown> {
  if (reply.type !== type) {
    throw new OpenEnvProtocolError(site, `a "${reply.type}" message where "${type}" was due`);
  }
  return reply.data;
}

/** The error an OpenEnv `error` message stands for, with the fix for its code. */
function replyError(site: OpenEnvCallSite, raw: Record<string, unknown>): OpenEnvError {
  const data = parseWith(site, ErrorDataSchema, raw);
  const code = data.code as WsErrorCode;
  if (code === 'CAPACITY_REACHED') {
    return new OpenEnvCapacityError(site, data.active_sessions, data.max_sessions);
  }
  if (code === 'INVALID_JSON' || code === 'UNKNOWN_TYPE') {
    return new OpenEnvProtocolError(site, `${code}: ${quoteExcerpt(data.message)}`);
  }
  const fix =
    code === 'EXECUTION_ERROR'
      ? site.call.startsWith('reset')
        ? "The env raised while resetting: check the task's reset keywords (its spec) and the server's log."
        : "The env raised while handling it: see the server's log. The episode is lost; reset to start another."
      : code === 'FACTORY_ERROR'
        ? "The server could not make an env for this session: see the server's log."
        : code === 'VALIDATION_ERROR'
          ? "The server rejected the request's fields: check the task's reset keywords (its spec) against the server's reset."
          : "See the server's log.";
  return new OpenEnvServerError(site, data.code, data.message, fix);
}
