import { Hono } from 'hono';
import { z } from 'zod';
import type { ServerContext } from './context.ts';
import { EpisodePhaseError, UnknownSessionError } from './errors.ts';
import {
  openenvReset,
  openenvSchemas,
  openenvState,
  openenvStep,
  RESET_KEYS,
  resetData,
  StepRequest,
} from './openenv-protocol.ts';
import type { Session } from './session.ts';
import { Int, readBody, readQuery } from './validation.ts';
import { openenvWebSocket } from './ws.ts';

/** A reset over HTTP may name the session it continues (the one an earlier reset answered). */
const HttpResetData = resetData({ ...RESET_KEYS, session_id: Int.min(0).nullish() });
/** A step over HTTP names its session: the `session_id` its reset answered. */
const HttpStepRequest = StepRequest.extend({ session_id: Int.min(0).nullish() });
const HttpSessionQuery = z.object({ session_id: z.coerce.number().int().min(0).optional() });

const NO_SESSION =
  "HTTP episodes are per client: pass the session_id your POST /openenv/reset answered, or open the WebSocket /openenv/ws (a session of its own, as OpenEnv's EnvClient does).";

/**
 * OpenEnv's HTTP routes (`register_routes` in `http_server.py`), mounted under `/openenv`:
 * `/health`, `/metadata`, `/schema`, `/reset`, `/step`, `/state` and the `/ws` session.
 *
 * OpenEnv's own HTTP `/reset` and `/step` are stateless (each request makes and closes a fresh
 * env; episodes live in `/ws` sessions), which cannot step our envs. Here a reset without a
 * `session_id` opens a session of its own and names it in the reply (`session_id`, also in
 * `metadata`); steps, state reads and later resets pass it back, and `POST /close` ends it (else
 * the idle timeout does). No two clients ever share a session, so every episode is one client's.
 */
export function openenvRoutes(ctx: ServerContext): Hono {
  const { sessions, tasks } = ctx;
  const app = new Hono();
  const named = (id: number | null | undefined): Session => {
    if (id == null) throw new EpisodePhaseError(NO_SESSION);
    return sessions.get(id);
  };

  app.get('/health', (c) => c.json({ status: 'healthy' }));
  app.get('/metadata', (c) => c.json({ name: ctx.env.name, description: ctx.env.description }));
  app.get('/schema', (c) => c.json(openenvSchemas()));

  app.post('/reset', async (c) => {
    const { session_id, ...data } = await readBody(c, HttpResetData);
    const session = session_id == null ? await sessions.create() : sessions.get(session_id);
    const reply = await openenvReset(session, tasks, data);
    // One metadata object, in the answer and its observation: typed OpenEnv clients read the latter.
    Object.assign(reply.metadata, { session_id: session.id });
    return c.json({ ...reply, session_id: session.id });
  });
  app.post('/step', async (c) => {
    const body = await readBody(c, HttpStepRequest);
    return c.json(await openenvStep(named(body.session_id), body.action));
  });
  app.get('/state', async (c) => {
    const { session_id } = readQuery(c, HttpSessionQuery);
    return c.json(openenvState(named(session_id).peek()));
  });
  app.post('/close', async (c) => {
    const { session_id } = await readBody(c, z.object({ session_id: Int.min(0) }));
    if (!(await sessions.close(session_id, 'closed by the client'))) {
      throw new UnknownSessionError(session_id, sessions.idleTimeoutMs);
    }
    return c.json({ closed: session_id });
  });

  app.get('/ws', openenvWebSocket(ctx), (c) =>
    c.json(
      { detail: 'this is the OpenEnv WebSocket endpoint: connect a WebSocket client to it.' },
      426,
    ),
  );
  return app;
}
