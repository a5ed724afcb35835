import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ConfigError } from '../core/errors.ts';
import type { Viewer } from './viewer.ts';

/** `dreamgym view`'s default port. */
export const DEFAULT_VIEW_PORT = 7788;

/** A viewer serving on a port. */
export interface ListeningViewer {
  /** Root URL, e.g. `http://127.0.0.1:7788`. */
  url: string;
  port: number;
  /** Ends live-update streams, closes the source, then the listener. */
  close(): Promise<void>;
}

/** Serves a viewer over HTTP on `host` (default 127.0.0.1); fails with the fix if the port is taken. */
export async function listenViewer(
  viewer: Viewer,
  { host = '127.0.0.1', port = DEFAULT_VIEW_PORT }: { host?: string; port?: number } = {},
): Promise<ListeningViewer> {
  const http = serve({ fetch: viewer.app.fetch, hostname: host, port }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is in use: pick another with --port, or stop what listens there.`
            : `cannot listen on ${host}:${port}: ${error.message}. Check --host (an address of this machine, or 0.0.0.0 for all).`,
        ),
      ),
    );
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: async () => {
      await viewer.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
