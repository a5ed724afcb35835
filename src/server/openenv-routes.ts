import { Hono } from 'hono';
import type { ServerContext } from './context.ts';
import { EpisodePhaseError } from './errors.ts';
import {
  openenvReset,
  openenvSchemas,
  openenvState,
  openenvStep,
  ResetData,
  StepRequest,
} from './openenv-protocol.ts';
import type { Session } from './session.ts';
import { readBody } from './validation.ts';
import { openenvWebSocket } from './ws.ts';

/**
 * OpenEnv's HTTP routes (`register_routes` in `http_server.py`), mounted under `/openenv`:
 * `/health`, `/metadata`, `/schema`, `/reset`, `/step`, `/state` and the `/ws` session.
 *
 * OpenEnv's own HTTP `/reset` and `/step` are stateless (each request makes and closes a fresh
 * env; episodes live in `/ws` sessions), which cannot step our envs. Here the HTTP routes drive
 * one shared session instead, as OpenEnv's HTTP server did before it had sessions: right for
 * curl and a single client; concurrent clients each open `/ws`, as OpenEnv's EnvClient does.
 */
export function openenvRoutes(ctx: ServerContext): Hono {
  const { sessions, tasks } = ctx;
  const app = new Hono();
  let shared: Promise<Session> | undefined;
  /** The HTTP routes' session, opened on the first reset and again if it was closed or reaped. */
  const sharedSession = (): Promise<Session> => {
    shared = (shared ?? Promise.reject()).then(
      (session) => sessions.find(session.id) ?? sessions.create(),
      () => sessions.create(),
    );
    return shared;
  };

  app.get('/health', (c) => c.json({ status: 'healthy' }));
  app.get('/metadata', (c) => c.json({ name: ctx.env.name, description: ctx.env.description }));
  app.get('/schema', (c) => c.json(openenvSchemas()));

  app.post('/reset', async (c) => {
    const data = await readBody(c, ResetData);
    return c.json(await openenvReset(await sharedSession(), tasks, data));
  });
  app.post('/step', async (c) => {
    const body = await readBody(c, StepRequest);
    const session = sessions.find((await shared?.catch(() => undefined))?.id);
    if (!session) {
      throw new EpisodePhaseError(
        'no HTTP episode: POST /openenv/reset first. HTTP requests share one session; open /openenv/ws for a session of your own.',
      );
    }
    return c.json(await openenvStep(session, body.action));
  });
  app.get('/state', async (c) => {
    const session = sessions.find((await shared?.catch(() => undefined))?.id);
    return c.json(openenvState(session?.peek()));
  });

  app.get('/ws', openenvWebSocket(ctx), (c) =>
    c.json(
      { detail: 'this is the OpenEnv WebSocket endpoint: connect a WebSocket client to it.' },
      426,
    ),
  );
  return app;
}
