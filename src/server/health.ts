/**
 * A server instance as a load balancer or an orchestrator sees it: `GET /healthz` (live: the
 * process serves its sessions), `GET /readyz` (ready for new sessions: started with its buffer,
 * experience model and curriculum open, its checks passing, and not draining), the drain that
 * SIGTERM starts, and which sessions are this instance's when several sit behind one balancer.
 *
 * Several instances share one id space by slot, as `--workers` do inside one instance: instance
 * I of N gives its sessions ids with `id mod N = I`, so a balancer routes every request that
 * names a session (AgentGym's `env_idx`/`id`, OpenEnv HTTP's `session_id`) to the instance that
 * holds it by that rule alone (`deploy/haproxy.cfg`). A request that reaches another instance
 * anyway (its instance is gone, or the balancer routes otherwise) is told so here.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { checkInstance } from './instance-slot.ts';
import type { IdSlot, SessionStore } from './sessions.ts';
import { ownerOf } from './worker-routing.ts';

/** A readiness check: resolves when its part answers (e.g. the shared task pool's database). */
export type ReadinessCheck = () => Promise<unknown>;

/** What a {@link ServerHealth} knows of its server. */
export interface ServerHealthOptions {
  /** This instance's share of the session ids (`--instance I/N`); default all of them. */
  instance?: IdSlot;
  /** Checks `/readyz` runs besides "started and not draining", by name. */
  checks?: Record<string, ReadinessCheck>;
  /** A check slower than this fails. Default 2 s. */
  checkTimeoutMs?: number;
}

/** Requests that start something new: a session (or its first episode) or an episode. */
const STARTS = new Set([
  'POST /create',
  'POST /reset',
  'POST /alfworld/create',
  'POST /alfworld/reset',
  'POST /openenv/reset',
  'GET /openenv/ws',
]);

/** How often a drain looks for sessions whose episode has ended, in ms. */
const DRAIN_POLL_MS = 100;

const DRAINING =
  'this server instance is draining (shutting down): it finishes the episodes under way and starts no new session or episode. Open a new session: the load balancer sends it to another instance.';

/**
 * The serving state of one server instance: starting, ready, draining. `serveEnv` creates it,
 * the app mounts its {@link middleware} (before authentication: probes need no token), and
 * marks it ready once it listens.
 */
export class ServerHealth {
  private state: 'starting' | 'ready' | 'draining' = 'starting';
  private readonly checkTimeoutMs: number;

  constructor(private readonly options: ServerHealthOptions = {}) {
    this.checkTimeoutMs = options.checkTimeoutMs ?? 2000;
    if (options.instance) checkInstance(options.instance);
  }

  /** True once {@link drain} began. */
  get draining(): boolean {
    return this.state === 'draining';
  }

  /** The server listens with everything open: `/readyz` answers ready (while its checks pass). */
  markReady(): void {
    if (this.state === 'starting') this.state = 'ready';
  }

  /**
   * Stops new work and empties the server: from now on `/readyz` fails and requests that would
   * start a session or an episode are refused (503); each open session is closed as soon as its
   * episode has ended (its finished episode already recorded), until none is left or `timeoutMs`
   * passed. Resolves to the sessions still open then: their episodes are unfinished, and closing
   * the server records them as abandoned.
   */
  async drain(sessions: SessionStore, timeoutMs: number): Promise<number> {
    this.state = 'draining';
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const idle = sessions.ids().filter((id) => {
        const session = sessions.find(id);
        const episode = session?.peek();
        return session && !session.busy && (!episode || episode.terminated || episode.truncated);
      });
      await Promise.all(idle.map((id) => sessions.close(id, 'server draining')));
      if (sessions.size === 0 || Date.now() >= deadline) return sessions.size;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  /**
   * Answers `/healthz` and `/readyz`; while draining, refuses what would start a session or an
   * episode; and tells a request for another instance's session where it belongs.
   */
  readonly middleware: MiddlewareHandler = async (c, next) => {
    const route = `${c.req.method} ${c.req.path}`;
    if (route === 'GET /healthz') return c.json({ status: 'live', state: this.state });
    if (route === 'GET /readyz') return this.readiness(c);
    if (this.state === 'draining' && STARTS.has(route)) {
      c.header('Retry-After', '1');
      c.header('Connection', 'close');
      return c.json({ detail: DRAINING }, 503);
    }
    const slot = this.options.instance;
    if (slot && slot.count > 1) {
      const owner = await ownerOf(c, slot.count);
      if (owner !== undefined && owner !== slot.index) {
        return c.json(
          {
            detail: `this session is not on this server instance (${slot.index} of ${slot.count}): its id says instance ${owner} (id mod ${slot.count}), which is gone or draining, or the load balancer does not route by session id (see docs/deploy.md). Open a new session.`,
          },
          404,
        );
      }
    }
    return next();
  };

  private async readiness(c: Context): Promise<Response> {
    if (this.state !== 'ready') {
      return c.json(
        {
          status: this.state,
          detail:
            this.state === 'draining'
              ? DRAINING
              : 'starting: the buffer, the experience model or the curriculum is not open yet.',
        },
        503,
      );
    }
    const failed: Record<string, string> = {};
    await Promise.all(
      Object.entries(this.options.checks ?? {}).map(async ([name, check]) => {
        try {
          await withTimeout(check(), this.checkTimeoutMs);
        } catch (error) {
          failed[name] = (error as Error).message;
        }
      }),
    );
    if (Object.keys(failed).length > 0) {
      return c.json({ status: 'unavailable', failed }, 503);
    }
    return c.json({ status: 'ready' });
  }
}

/** `promise`, or a rejection after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
