import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, serve } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { ConfigError } from '../core/errors.ts';
import type { EnvServer } from './app.ts';
import { WS_GOING_AWAY } from './ws.ts';

export interface ListenOptions {
  /** Interface to bind. Default 127.0.0.1: reachable from this machine only. */
  host?: string;
  /** Port; 0 picks a free one. Default 36001, AgentGym's first env port. */
  port?: number;
  /**
   * Also serve HTTP on this Unix socket, bound by this process alone: where the other workers
   * of `serve --workers N` forward the requests for this one's sessions.
   */
  socketPath?: string;
}

export interface ListeningServer {
  /** Root URL, e.g. `http://127.0.0.1:36001`. */
  url: string;
  port: number;
  /** Closes WebSockets, every session's env, then the listener. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 36001;

/** Serves `server` over HTTP and WebSocket; fails with the fix if the port is taken. */
export async function listen(
  server: EnvServer,
  options: ListenOptions = {},
): Promise<ListeningServer> {
  const host = options.host ?? '127.0.0.1';
  const wanted = options.port ?? DEFAULT_PORT;
  // Messages over the body limit close their connection with 1009, as bodies get 413.
  const webSockets = new WebSocketServer({ noServer: true, maxPayload: server.maxBodyBytes });
  // @hono/node-server's default overrideGlobalObjects stays on: hono's bodyLimit re-wraps a
  // chunked request with `new Request(raw)`, which only the adapter's own Request accepts.
  const http = serve({
    fetch: server.app.fetch,
    hostname: host,
    port: wanted,
    websocket: { server: webSockets },
  }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', (error: NodeJS.ErrnoException) => {
      const taken = error.code === 'EADDRINUSE';
      reject(
        new ConfigError(
          taken
            ? `port ${wanted} on ${host} is in use: pick another with --port, or stop what listens there.`
            : `cannot listen on ${host}:${wanted}: ${error.message}. Check --host (an address of this machine, or 0.0.0.0 for all).`,
        ),
      );
    });
  });
  const forwarded = options.socketPath
    ? await listenOnSocket(server, options.socketPath).catch((error) => {
        http.close();
        throw error;
      })
    : undefined;
  const { port } = http.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    close: async () => {
      for (const ws of webSockets.clients) {
        ws.close(WS_GOING_AWAY, 'server shutting down');
        // A peer that does not answer the close frame is dropped after a second, not ws's 30 s.
        setTimeout(() => ws.terminate(), 1000).unref();
      }
      webSockets.close();
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      if (forwarded) {
        forwarded.closeAllConnections();
        await new Promise<void>((resolve) => forwarded.close(() => resolve()));
      }
    },
  };
}

/** Serves `server`'s HTTP routes on a Unix socket (a stale socket file is replaced). */
async function listenOnSocket(server: EnvServer, path: string): Promise<Server> {
  rmSync(path, { force: true });
  const http = createAdaptorServer({ fetch: server.app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    // Exclusive: in a cluster worker, bound here rather than shared through the primary.
    http.listen({ path, exclusive: true }, resolve);
  });
  return http;
}
