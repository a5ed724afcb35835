import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type HttpBindings, serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';

/** One request a fake server received, and the status it answered (0: dropped unanswered). */
export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

/** Faults to inject, changeable while the server runs. */
export interface Faults {
  /** Delay before answering each request, in ms. */
  delayMs: number;
  /** Answer this many of the next requests with HTTP 503. */
  unavailable: number;
  /** Drop the connection of this many of the next requests, unanswered. */
  dropped: number;
}

/** A fake server listening on a free local port. */
export interface FakeServer {
  url: string;
  /** Every request, in order, 503s included. */
  readonly calls: RecordedCall[];
  readonly faults: Faults;
  /** Calls to `path`, e.g. `/step`. */
  callsTo(path: string): RecordedCall[];
  /** Stops listening and drops open connections (slow requests included). */
  close(): Promise<void>;
}

/** A fake server's Hono app, served by Node (its requests carry the socket, for faults). */
export type FakeApp = Hono<{ Bindings: HttpBindings }>;

/**
 * A Hono app that behaves like a FastAPI server (AgentGym's servers are FastAPI apps): unknown
 * routes answer 404 `{ detail: "Not Found" }`, and requests are recorded and subject to
 * {@link Faults}. Add the routes, then {@link listen}.
 */
export function fastapiLikeApp(): { app: FakeApp; calls: RecordedCall[]; faults: Faults } {
  const calls: RecordedCall[] = [];
  const faults: Faults = { delayMs: 0, unavailable: 0, dropped: 0 };
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.use(async (c, next) => {
    const text = c.req.method === 'POST' ? await c.req.text() : '';
    const call: RecordedCall = {
      method: c.req.method,
      path: c.req.path,
      query: c.req.query(),
      body: text ? safeJson(text) : undefined,
      status: 0,
    };
    calls.push(call);
    if (faults.delayMs > 0) await sleep(faults.delayMs);
    if (faults.dropped > 0) {
      faults.dropped -= 1;
      c.env.incoming.socket.destroy();
      return c.body(null);
    }
    if (faults.unavailable > 0) {
      faults.unavailable -= 1;
      call.status = 503;
      return c.json({ detail: 'Service Unavailable' }, 503);
    }
    await next();
    call.status = c.res.status;
  });
  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  // FastAPI answers an unhandled exception (a KeyError for an unknown session, say) like this.
  app.onError((_error, c) => c.text('Internal Server Error', 500));
  return { app, calls, faults };
}

/** FastAPI's 422 for a request field that is missing or of the wrong type. */
export function unprocessable(c: Context, where: 'body' | 'query', field: string) {
  return c.json(
    { detail: [{ type: 'int_parsing', loc: [where, field], msg: 'Input should be valid' }] },
    422,
  );
}

/** Serves `app` on 127.0.0.1 at a free port. */
export async function listen(
  app: FakeApp,
  calls: RecordedCall[],
  faults: Faults,
): Promise<FakeServer> {
  const server = await new Promise<Server>((resolve) => {
    const s = serve(
      { fetch: app.fetch, hostname: '127.0.0.1', port: 0, overrideGlobalObjects: false },
      () => resolve(s as Server),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    faults,
    callsTo: (path) => calls.filter((call) => call.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
