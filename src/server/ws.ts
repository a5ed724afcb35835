import { upgradeWebSocket } from '@hono/node-server';
import type { WSContext } from 'hono/ws';
import { z } from 'zod';
import { DreamGymError } from '../core/errors.ts';
import type { ServerContext } from './context.ts';
import { SessionLimitError } from './errors.ts';
import {
  ActionData,
  openenvReset,
  openenvState,
  openenvStep,
  ResetData,
} from './openenv-protocol.ts';
import type { Session } from './session.ts';
import { check } from './validation.ts';

/** WebSocket close codes (RFC 6455 §7.4.1) the server sends. */
const CLOSE_NORMAL = 1000;
/** Sent to every client when the server shuts down. */
export const WS_GOING_AWAY = 1001;
const CLOSE_TRY_AGAIN_LATER = 1013;

/** OpenEnv's WebSocket error codes (`WSErrorCode`). */
type ErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'CAPACITY_REACHED'
  | 'FACTORY_ERROR';

const Message = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('reset'), data: ResetData.default({}) }),
  z.strictObject({ type: z.literal('step'), data: ActionData }),
  z.strictObject({ type: z.literal('state') }),
  z.strictObject({ type: z.literal('close') }),
]);
const MESSAGE_TYPES = ['reset', 'step', 'state', 'close'];

/**
 * OpenEnv's WebSocket session (`/ws` in `http_server.py`): each connection gets its own session,
 * opened when it connects and closed when it sends `close`, disconnects, or is reaped as idle.
 * Messages `{ type: reset|step|state|close, data }` are answered in order with
 * `{ type: "observation", data }`, `{ type: "state", data }` or `{ type: "error", data: { message,
 * code } }`. A full server answers `CAPACITY_REACHED` and closes the connection (1013).
 */
export function openenvWebSocket(ctx: ServerContext) {
  return upgradeWebSocket(() => {
    let session: Session | undefined;
    let queue: Promise<void> = Promise.resolve();
    /** Messages are handled one at a time, in order, after the session is open. */
    const enqueue = (work: () => Promise<void>) => {
      queue = queue
        .then(work)
        .catch((error: Error) => ctx.warn(`WebSocket session ${session?.id}: ${error.stack}`));
    };
    return {
      onOpen: (_event, ws) =>
        enqueue(async () => {
          try {
            session = await ctx.sessions.create();
          } catch (error) {
            const capacity = error instanceof SessionLimitError;
            sendError(ws, capacity ? 'CAPACITY_REACHED' : 'FACTORY_ERROR', error, {
              ...(capacity && {
                active_sessions: ctx.sessions.size,
                max_sessions: ctx.sessions.maxSessions,
              }),
            });
            ws.close(CLOSE_TRY_AGAIN_LATER, capacity ? 'server full' : 'env failed to start');
            return;
          }
          session.onClose((reason) => ws.close(CLOSE_NORMAL, `session closed: ${reason}`));
        }),
      onMessage: (event, ws) =>
        enqueue(async () => {
          if (!session) return;
          await answer(ctx, session, event.data, ws);
        }),
      onClose: () =>
        enqueue(async () => {
          if (session) await ctx.sessions.close(session.id, 'WebSocket disconnected');
        }),
    };
  });
}

/** Handles one message and sends its answer. */
async function answer(
  ctx: ServerContext,
  session: Session,
  raw: unknown,
  ws: WSContext,
): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : '');
  } catch {
    sendError(ws, 'INVALID_JSON', 'messages must be JSON text, e.g. {"type": "reset", "data": {}}');
    return;
  }
  const type = (json as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !MESSAGE_TYPES.includes(type)) {
    sendError(
      ws,
      'UNKNOWN_TYPE',
      `unknown message type ${JSON.stringify(type)}; send one of ${MESSAGE_TYPES.join(', ')}`,
    );
    return;
  }
  let message: z.output<typeof Message>;
  try {
    message = check(Message, json, 'message');
  } catch (error) {
    sendError(ws, 'VALIDATION_ERROR', error);
    return;
  }
  try {
    if (message.type === 'reset') {
      send(ws, 'observation', await openenvReset(session, ctx.tasks, message.data));
    } else if (message.type === 'step') {
      send(ws, 'observation', await openenvStep(session, message.data));
    } else if (message.type === 'state') {
      send(ws, 'state', openenvState(session.peek()));
    } else {
      ws.close(CLOSE_NORMAL, 'closed by the client');
    }
  } catch (error) {
    if (!(error instanceof DreamGymError))
      ctx.warn(`WebSocket session ${session.id}: ${(error as Error).stack}`);
    sendError(ws, 'EXECUTION_ERROR', error);
  }
}

function send(ws: WSContext, type: 'observation' | 'state' | 'error', data: unknown): void {
  ws.send(JSON.stringify({ type, data }));
}

function sendError(
  ws: WSContext,
  code: ErrorCode,
  problem: unknown,
  extra: Record<string, unknown> = {},
): void {
  const message = problem instanceof Error ? problem.message : String(problem);
  send(ws, 'error', { message, code, ...extra });
}
