import { Agent, request } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { type IdSlot, slotOf } from './sessions.ts';

/**
 * Where a request goes when several worker processes serve one port (`serve --workers N`). The
 * kernel hands each connection to any worker, and clients do not keep a session on one
 * connection: AgentGym's Python clients open a connection per request, and a pooled client sends
 * a session's requests over whichever connection is free. So a worker answers what it can and
 * forwards requests for another worker's session there, over that worker's Unix socket.
 */
export interface WorkerRouting extends IdSlot {
  /** The Unix socket each worker also listens on, by worker index. */
  sockets: readonly string[];
}

/** Set on forwarded requests: the worker that gets one answers it, whatever the session. */
export const FORWARDED_HEADER = 'x-dreamgym-forwarded';

/**
 * Routes whose JSON body names the session: AgentGym WebShop's `env_idx`, ALFWorld's `id`,
 * OpenEnv HTTP's `session_id` (a reset without one opens a session on whichever worker gets it).
 */
const BODY_FIELD: Record<string, string> = {
  '/reset': 'env_idx',
  '/step': 'env_idx',
  '/close': 'env_idx',
  '/alfworld/reset': 'id',
  '/alfworld/step': 'id',
  '/alfworld/close': 'id',
  '/openenv/reset': 'session_id',
  '/openenv/step': 'session_id',
  '/openenv/close': 'session_id',
};

/** Routes whose query names the session. */
const QUERY_FIELD: Record<string, string> = {
  '/observation': 'env_idx',
  '/available_actions': 'env_idx',
  '/instruction_text': 'env_idx',
  '/state': 'env_idx',
  '/alfworld/observation': 'id',
  '/alfworld/available_actions': 'id',
  '/alfworld/detail': 'id',
  '/openenv/state': 'session_id',
};

/**
 * The worker that must answer this request, or undefined for any worker (session creation,
 * probes, metadata, WebSockets, and malformed requests, which any worker rejects alike).
 */
export async function ownerOf(c: Context, count: number): Promise<number | undefined> {
  const path = c.req.path;
  const bodyField = c.req.method === 'POST' ? BODY_FIELD[path] : undefined;
  const queryField = c.req.method === 'GET' ? QUERY_FIELD[path] : undefined;
  let id: unknown;
  if (bodyField) {
    try {
      id = (JSON.parse(await c.req.text()) as Record<string, unknown> | null)?.[bodyField];
    } catch {
      return undefined;
    }
  } else if (queryField) {
    const text = c.req.query(queryField);
    id = text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  }
  return Number.isSafeInteger(id) && (id as number) >= 0 ? slotOf(id as number, count) : undefined;
}

/** Routes that list sessions: every worker holds a share, and the answer is all of them. */
const SESSION_LISTS = new Set(['/list_envs']);

/**
 * Middleware that forwards requests for other workers' sessions to them and answers their
 * answer, and answers a session list with every worker's sessions; a worker that does not answer
 * gets the client a 502 saying so.
 */
export function workerRouting(routing: WorkerRouting): MiddlewareHandler {
  const agent = new Agent({ keepAlive: true });
  return async (c, next) => {
    if (c.req.header(FORWARDED_HEADER) !== undefined) return next();
    if (c.req.method === 'GET' && SESSION_LISTS.has(c.req.path)) {
      await next();
      if (c.res.ok) c.res = await withOthersSessions(c, routing, agent);
      return;
    }
    const owner = await ownerOf(c, routing.count);
    if (owner === undefined || owner === routing.index) return next();
    try {
      return await forward(c, routing.sockets[owner] as string, agent);
    } catch (error) {
      return notAnswered(c, owner, 'the session lives in', error);
    }
  };
}

/**
 * This worker's session list (`c.res`) with the other workers' on this machine, in id order.
 * Other machines' instances (sparse `sockets`) keep their own lists, as separate servers do.
 */
async function withOthersSessions(
  c: Context,
  routing: WorkerRouting,
  agent: Agent,
): Promise<Response> {
  const others = [...routing.sockets.entries()].filter(
    (entry): entry is [number, string] => entry[0] !== routing.index && entry[1] !== undefined,
  );
  const answers = await Promise.allSettled(
    others.map(async ([, socket]) => {
      const answer = await forward(c, socket, agent);
      if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${await answer.text()}`);
      return (await answer.json()) as number[];
    }),
  );
  const failed = answers.findIndex((answer) => answer.status === 'rejected');
  if (failed !== -1) {
    const { reason } = answers[failed] as PromiseRejectedResult;
    return notAnswered(c, (others[failed] as [number, string])[0], 'some sessions live in', reason);
  }
  const ids = [
    ...((await c.res.json()) as number[]),
    ...answers.flatMap((answer) => (answer as PromiseFulfilledResult<number[]>).value),
  ];
  return c.json(ids.sort((a, b) => a - b));
}

function notAnswered(c: Context, worker: number, what: string, error: unknown): Response {
  return c.json(
    {
      detail: `${what} server worker ${worker}, which did not answer (${(error as Error).message}); the server may be shutting down.`,
    },
    502,
  );
}

/** Sends the request as it came to the server listening on `socketPath`; resolves to its answer. */
async function forward(c: Context, socketPath: string, agent: Agent): Promise<Response> {
  const body = c.req.method === 'GET' ? undefined : Buffer.from(await c.req.text());
  const url = new URL(c.req.url);
  const headers: Record<string, string> = { [FORWARDED_HEADER]: '1' };
  for (const name of ['content-type', 'authorization']) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, agent, method: c.req.method, path: url.pathname + url.search, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const type = res.headers['content-type'];
          resolve(
            new Response(Buffer.concat(chunks), {
              status: res.statusCode ?? 502,
              ...(type !== undefined && { headers: { 'content-type': type } }),
            }),
          );
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
