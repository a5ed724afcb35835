import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

/** A Hono app listening on a free local port, for tests that drive a real browser against it. */
export interface ServedApp {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Stops listening, dropping open connections. */
  close(): Promise<void>;
}

/** Serves `app` on 127.0.0.1 at a free port. */
export async function serveApp(app: Hono): Promise<ServedApp> {
  const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', reject);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
