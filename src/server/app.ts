import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { ConfigError } from '../core/errors.ts';
import type { Provenance, Task } from '../core/types.ts';
import type { Env, TaskSource, TaskSplit } from '../envs/env.ts';
import { agentgymRoutes } from './agentgym-routes.ts';
import { alfworldRoutes } from './alfworld-routes.ts';
import { bearerToken } from './auth.ts';
import type { SessionCapacity } from './capacity.ts';
import type { ServerContext } from './context.ts';
import { httpStatus } from './errors.ts';
import type { ServerHealth } from './health.ts';
import { ServerMetrics } from './metrics.ts';
import { openenvRoutes } from './openenv-routes.ts';
import type { RecordingHooks } from './session.ts';
import { SessionStore } from './sessions.ts';
import { TaskPicker } from './tasks.ts';
import { type WorkerRouting, workerRouting } from './worker-routing.ts';

export interface EnvServerOptions extends RecordingHooks {
  /** Env family served, e.g. `webshop`; `/metadata` reports it. */
  name: string;
  description?: string;
  /** A fresh env for each session; each client gets its own. */
  makeEnv: () => Env | Promise<Env>;
  /** The env's task splits; reset requests pick tasks by index in `split`. */
  tasks: TaskSource;
  /** Split whose task indices clients name. Default `train`: trainers drive servers. */
  split?: TaskSplit;
  /** Picks the task of a reset that names none (e.g. a curriculum); else the env draws one. */
  taskProvider?: () => Task | Promise<Task>;
  /**
   * The env can start from a recorded real state (`reset({ from })`: a synthetic env), so resets
   * may name one. Default false: a real env's server refuses `from`.
   */
  branches?: boolean;
  /** Sessions open at once. Default 64. */
  maxSessions?: number;
  /** Where that cap is counted; default in this server (see `SessionCapacity`). */
  capacity?: SessionCapacity;
  /** Sessions without requests for this long are closed; 0 never. Default 600 s. */
  idleTimeoutMs?: number;
  /**
   * When set, every request but health probes needs `Authorization: Bearer <token>`. Printable
   * ASCII, not empty (see `checkToken`): a token no client could send is refused here.
   */
  token?: string;
  /** Largest request body or WebSocket message, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Longest action, in characters, passed to an env: a longer one is an invalid step (state
   * unchanged, reward 0, `info.invalidAction` quoting its head) and is recorded clipped. Default
   * 2,000 (`DEFAULT_MAX_ACTION_CHARS`).
   */
  maxActionChars?: number;
  /** Provenance of reported trajectories. Default `real-online`. */
  provenance?: Provenance;
  /** Policy id of reported trajectories. Default `remote`. */
  policyId?: string;
  /** Problems that fail no request (a recording hook that threw, a bug). Default stderr. */
  warn?: (message: string) => void;
  /** Milliseconds now, for idle reaping; tests pass a fake clock. */
  clock?: () => number;
  /**
   * This server is one of several worker processes on one port: its session ids encode its
   * index, and requests for other workers' sessions are forwarded to them.
   */
  workers?: WorkerRouting;
  /** Answers `/healthz` and `/readyz` (no token needed) and gates new work while draining. */
  health?: ServerHealth;
}

export interface EnvServer {
  /** The hono app: `app.request()` in tests, `listen()` to serve on a port. */
  app: Hono;
  sessions: SessionStore;
  /** What `GET /metrics` reports; serveEnv adds the buffer's, the LLM's and the curriculum's. */
  metrics: ServerMetrics;
  maxBodyBytes: number;
  /** Stops reaping and closes every session's env. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_BODY_BYTES = 1 << 20;

/** Paths that answer without a token, so orchestrators can probe liveness. */
const PROBES = new Set(['/', '/alfworld', '/openenv/health']);

/**
 * An env server with three protocol faces over one set of sessions: AgentGym's WebShop protocol
 * at `/`, AgentGym's ALFWorld protocol at `/alfworld`, and OpenEnv's at `/openenv` (HTTP and the
 * `/openenv/ws` WebSocket). The faces need prefixes because AgentGym and OpenEnv both claim
 * `POST /reset` and `POST /step` with different bodies; all three clients take a base URL with a
 * path. Errors answer FastAPI-style `{ detail }` with a status naming the kind of problem (400
 * bad request, 401 no token, 404 unknown session, 409 wrong episode phase, 413 body too large,
 * 503 server full), except where ALFWorld's protocol answers 200 `{ error }`.
 */
export function createEnvServer(options: EnvServerOptions): EnvServer {
  // First: settings no client could use fail the server before it holds anything.
  const auth = options.token === undefined ? undefined : bearerToken(options.token);
  const { maxActionChars } = options;
  if (maxActionChars !== undefined && !(Number.isInteger(maxActionChars) && maxActionChars >= 1)) {
    throw new ConfigError(
      `the action limit is a whole number of characters, at least 1 (--max-action-chars), got ${maxActionChars}.`,
    );
  }
  const warn = options.warn ?? ((message: string) => console.error(message));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const metrics = new ServerMetrics();
  const sessions = new SessionStore({
    makeEnv: options.makeEnv,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    ...(options.maxActionChars !== undefined && { maxActionChars: options.maxActionChars }),
    recording: {
      provenance: options.provenance ?? 'real-online',
      policyId: options.policyId ?? 'remote',
      warn,
      ...(options.onTransition && { onTransition: options.onTransition }),
      ...(options.onEpisode && { onEpisode: options.onEpisode }),
      onAbandoned: async (trajectory, reason) => {
        metrics.observeAbandoned();
        await options.onAbandoned?.(trajectory, reason);
      },
      onStepTimed: (seconds, result) => metrics.observeStep(seconds, result),
    },
    ...(options.clock && { clock: options.clock }),
    ...(options.capacity && { capacity: options.capacity }),
    ...(options.workers && { idSlot: options.workers }),
  });
  sessions.startReaper();
  metrics.gauge('dreamgym_sessions_open', 'Sessions open now.', () => sessions.size);
  const ctx: ServerContext = {
    sessions,
    tasks: new TaskPicker(
      options.tasks,
      options.split ?? 'train',
      options.taskProvider,
      options.branches,
    ),
    env: { name: options.name, description: options.description ?? options.name },
    warn,
  };

  const app = new Hono();
  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        c.json(
          {
            detail: `the request body is over ${maxBodyBytes} bytes; send smaller requests (actions are short text).`,
          },
          413,
        ),
    }),
  );
  if (options.health) app.use(options.health.middleware);
  if (auth) {
    app.use((c, next) =>
      c.req.method === 'GET' && PROBES.has(c.req.path) ? next() : auth(c, next),
    );
  }
  if (options.workers) app.use(workerRouting(options.workers));
  app.get('/metrics', async (c) =>
    c.text(await metrics.render(), 200, { 'content-type': metrics.contentType }),
  );
  app.route('/openenv', openenvRoutes(ctx));
  app.route('/alfworld', alfworldRoutes(ctx));
  app.route('/', agentgymRoutes(ctx));
  app.notFound((c) =>
    c.json(
      {
        detail: `no route ${c.req.method} ${c.req.path}: AgentGym's WebShop protocol is at /, its ALFWorld protocol at /alfworld/, OpenEnv's at /openenv/.`,
      },
      404,
    ),
  );
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    const status = httpStatus(error);
    if (status === 500) warn(`${c.req.method} ${c.req.path} failed: ${error.stack}`);
    return c.json({ detail: error.message }, status);
  });

  return { app, sessions, metrics, maxBodyBytes, close: () => sessions.closeAll() };
}
