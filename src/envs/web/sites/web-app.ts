import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

/** The request header that names an episode's private copy of a site's state. */
export const INSTANCE_HEADER = 'x-dreamgym-instance';

/** Hono context variables of a built-in web app: the episode's own database. */
export interface WebAppEnv {
  Variables: {
    /** This request's episode database (a private copy of the site's generated state). */
    db: Database.Database;
    /** The episode instance id (`default` for requests without {@link INSTANCE_HEADER}). */
    instance: string;
  };
}

/**
 * One of our built-in web apps (after WebArena's sites): how to generate its state and how to
 * serve it. The state lives in SQLite; every episode gets a copy of the generated database.
 */
export interface WebAppDefinition {
  /** Our name, e.g. `forum`; env name `web:forum`. */
  name: string;
  /** The WebArena site it stands in for in task configs, e.g. `reddit`, `shopping_admin`. */
  site: string;
  /** One line for `dreamgym envs`. */
  description: string;
  /** Writes the site's initial state into an empty database. Same seed, same database. */
  build(db: Database.Database, seed: number): void;
  /** Registers the site's routes; handlers read the episode's database from `c.var.db`. */
  routes(app: Hono<WebAppEnv>): void;
  /**
   * Cookies that log the site's default user in (WebArena's auto-login), given the episode's
   * database. Absent for sites without logins.
   */
  loginCookies?(db: Database.Database): Record<string, string>;
}

/** A built-in web app listening on a port, with a private database per episode instance. */
export interface RunningWebApp {
  definition: WebAppDefinition;
  seed: number;
  /** Base URL, e.g. `http://127.0.0.1:7780`, no trailing slash. */
  url: string;
  /** A fresh copy of the generated state under `id` (an existing id is replaced). */
  createInstance(id: string): Database.Database;
  /** The database of instance `id` (`default` always exists). */
  instance(id: string): Database.Database | undefined;
  /** Drops instance `id`'s database. Idempotent; `default` is kept. */
  disposeInstance(id: string): void;
  /** Stops listening and closes every database. Idempotent. */
  close(): Promise<void>;
}

export interface StartWebAppOptions {
  /** Content seed. Default 0. */
  seed?: number;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

const templates = new Map<string, Buffer>();

/** The serialized generated database of `definition` for `seed`, built once per process. */
export function templateDatabase(definition: WebAppDefinition, seed: number): Buffer {
  const key = `${definition.name}:${seed}`;
  let template = templates.get(key);
  if (!template) {
    const db = new Database(':memory:');
    db.transaction(() => definition.build(db, seed))();
    template = db.serialize();
    db.close();
    templates.set(key, template);
  }
  return template;
}

/** The Hono app of a built-in site, routing each request to its episode's database. */
export function webAppRouter(
  definition: WebAppDefinition,
  instances: (id: string) => Database.Database | undefined,
): Hono<WebAppEnv> {
  const app = new Hono<WebAppEnv>();
  app.use(async (c, next) => {
    const id = c.req.header(INSTANCE_HEADER) ?? 'default';
    const db = instances(id);
    if (!db) {
      return c.html(
        `<h1>Episode ended</h1><p>The site state of episode ${escapeHtml(id)} was disposed.</p>`,
        410,
      );
    }
    c.set('db', db);
    c.set('instance', id);
    await next();
  });
  definition.routes(app);
  return app;
}

/** Starts `definition` on a port; every instance is a copy of the seed's generated database. */
export async function startWebApp(
  definition: WebAppDefinition,
  options: StartWebAppOptions = {},
): Promise<RunningWebApp> {
  const seed = options.seed ?? 0;
  const host = options.host ?? '127.0.0.1';
  const template = templateDatabase(definition, seed);
  const databases = new Map<string, Database.Database>();
  const createInstance = (id: string) => {
    databases.get(id)?.close();
    const db = new Database(template);
    databases.set(id, db);
    return db;
  };
  createInstance('default');
  const app = webAppRouter(definition, (id) => databases.get(id));
  const http = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', reject);
  });
  const { port } = http.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    definition,
    seed,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    createInstance,
    instance: (id) => databases.get(id),
    disposeInstance(id) {
      if (id === 'default') return;
      databases.get(id)?.close();
      databases.delete(id);
    },
    close() {
      closing ??= (async () => {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
        for (const db of databases.values()) db.close();
        databases.clear();
      })();
      return closing;
    },
  };
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
