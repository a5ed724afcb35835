import { randomInt } from 'node:crypto';
import { DEFAULT_MAX_ACTION_CHARS } from '../core/action-limit.ts';
import type { Env } from '../envs/env.ts';
import { localCapacity, type SessionCapacity } from './capacity.ts';
import { SessionLimitError, UnknownSessionError } from './errors.ts';
import { type RecordingOptions, type ServerStats, Session } from './session.ts';

export interface SessionStoreOptions {
  /** A fresh env per session. */
  makeEnv: () => Env | Promise<Env>;
  /** Sessions open at once; creating one more fails with a 503. */
  maxSessions: number;
  /**
   * Where the cap is counted; default in this store. `serve --workers N` counts it in the
   * primary, so the cap holds for the whole server.
   */
  capacity?: SessionCapacity;
  /** Sessions without a request for this long are closed; 0 keeps them until closed. */
  idleTimeoutMs: number;
  /** Longest action a session passes to its env; default {@link DEFAULT_MAX_ACTION_CHARS}. */
  maxActionChars?: number;
  recording: RecordingOptions;
  /**
   * This store's share of the id space when several processes serve one port: its ids are the
   * ones with `id % count === index`, so any process can tell which one holds a session. Default
   * every id.
   */
  idSlot?: IdSlot;
  /** Milliseconds now; tests pass a fake clock. */
  clock?: () => number;
}

/** How long closing every session waits for envs in a call, by default (see `closeAll`). */
export const ENV_CLOSE_GRACE_MS = 2000;

/** Ids go up to this, so they fit any client's int (AgentGym's are Python ints, JSON numbers). */
const MAX_ID = 2 ** 31 - 1;

/** The ids `id % count === index`: one server process's of `count` (see `--workers`). */
export interface IdSlot {
  index: number;
  count: number;
}

/** The index of the process whose {@link IdSlot} holds session `id`. */
export function slotOf(id: number, count: number): number {
  return id % count;
}

/**
 * The open sessions of a server, each with its own env. Ids are random rather than counted, so a
 * client that outlived a server restart gets "no open session" instead of someone else's
 * episode. Idle sessions are reaped by an unref'd timer: a trainer that crashed, or a WebSocket
 * peer that vanished without closing, does not hold a slot forever.
 */
export class SessionStore {
  readonly stats: ServerStats = {
    sessionsOpened: 0,
    episodesStarted: 0,
    episodesFinished: 0,
    episodesAbandoned: 0,
    steps: 0,
  };
  private readonly sessions = new Map<number, Session>();
  /** Holds a slot for every open session and every session whose env is still being made. */
  private readonly capacity: SessionCapacity;
  private readonly clock: () => number;
  private reaper: NodeJS.Timeout | undefined;
  /** See {@link envsClosing}. */
  private closing = 0;

  constructor(private readonly options: SessionStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.capacity = options.capacity ?? localCapacity(options.maxSessions);
  }

  get size(): number {
    return this.sessions.size;
  }

  get maxSessions(): number {
    return this.capacity.max;
  }

  get idleTimeoutMs(): number {
    return this.options.idleTimeoutMs;
  }

  /** Opens a session with a fresh env, or fails with a {@link SessionLimitError}. */
  async create(): Promise<Session> {
    const { idleTimeoutMs, makeEnv, recording } = this.options;
    if (!(await this.capacity.acquire())) {
      throw new SessionLimitError(this.capacity.max, idleTimeoutMs);
    }
    let env: Env;
    try {
      env = await makeEnv();
    } catch (error) {
      this.capacity.release();
      throw error;
    }
    let id = this.randomId();
    while (this.sessions.has(id)) id = this.randomId();
    const session = new Session(
      id,
      env,
      recording,
      this.stats,
      this.clock,
      this.options.maxActionChars ?? DEFAULT_MAX_ACTION_CHARS,
    );
    this.sessions.set(id, session);
    this.stats.sessionsOpened++;
    return session;
  }

  /**
   * The open session `id`, or an {@link UnknownSessionError}. Every request on a session looks
   * it up here or in {@link find}, so a lookup counts as activity: a client that only polls
   * (`GET /observation` every few seconds) is not reaped as idle.
   */
  get(id: number): Session {
    const session = this.sessions.get(id);
    if (!session) throw new UnknownSessionError(id, this.options.idleTimeoutMs);
    session.touch();
    return session;
  }

  /** The open session `id`, if any; like {@link get}, counts as activity. */
  find(id: number | undefined): Session | undefined {
    const session = id === undefined ? undefined : this.sessions.get(id);
    session?.touch();
    return session;
  }

  /** A random id of this store's slot. */
  private randomId(): number {
    const { index, count } = this.options.idSlot ?? { index: 0, count: 1 };
    return randomInt(Math.floor(MAX_ID / count)) * count + index;
  }

  ids(): number[] {
    return [...this.sessions.keys()];
  }

  /** Closes session `id`; false if no such session is open. */
  async close(id: number, reason = 'closed by the client'): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    this.capacity.release();
    await session.close(reason);
    return true;
  }

  /** Closes the sessions idle for longer than the timeout; returns their ids. */
  async reapIdle(): Promise<number[]> {
    const { idleTimeoutMs } = this.options;
    if (idleTimeoutMs <= 0) return [];
    const cutoff = this.clock() - idleTimeoutMs;
    const idle = [...this.sessions.values()].filter((s) => !s.busy && s.lastActive < cutoff);
    const reason = `idle for over ${idleTimeoutMs / 1000} s`;
    await Promise.all(idle.map((s) => this.close(s.id, reason)));
    return idle.map((s) => s.id);
  }

  /** Reaps idle sessions every quarter of the timeout; the timer does not keep the process up. */
  startReaper(): void {
    const { idleTimeoutMs } = this.options;
    if (idleTimeoutMs <= 0 || this.reaper) return;
    const every = Math.min(Math.max(idleTimeoutMs / 4, 10), 30_000);
    const reap = () =>
      this.reapIdle().catch((error: Error) =>
        this.options.recording.warn(`closing an idle session failed: ${error.message}`),
      );
    this.reaper = setInterval(reap, every).unref();
  }

  /**
   * Stops the reaper and closes every session: each unfinished episode is reported abandoned at
   * once, even one with a call under way (its result is discarded), so a shutdown records them
   * all within its timeout; then waits at most `graceMs` for the envs to close. An env still in a
   * call then (an LLM request that times out in minutes) closes when it returns, and is counted
   * in {@link envsClosing}.
   */
  async closeAll(reason = 'server shutting down', graceMs = ENV_CLOSE_GRACE_MS): Promise<void> {
    clearInterval(this.reaper);
    this.reaper = undefined;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const _ of sessions) this.capacity.release();
    const closed = sessions.map((session) => {
      this.closing++;
      return session.close(reason).finally(() => this.closing--);
    });
    await Promise.all(sessions.map((session) => session.abandonNow(reason)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(closed),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (this.closing > 0) {
      this.options.recording.warn(
        `${this.closing} envs were still in a call ${graceMs / 1000} s after their sessions closed; each closes when its call returns.`,
      );
    }
  }

  /** Envs of closed sessions still waiting for a call under way to return before they close. */
  get envsClosing(): number {
    return this.closing;
  }
}
