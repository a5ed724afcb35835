import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import type { BrowserContext } from 'playwright-core';
import { TaskError } from '../../../core/errors.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import type { SiteProvider, SiteSession } from './site-provider.ts';
import {
  INSTANCE_HEADER,
  templateDatabase,
  type WebAppDefinition,
  webAppRouter,
} from './web-app.ts';

/** The host of a built-in app inside a browser env, e.g. `forum.test`. */
export function builtInSiteHost(app: WebAppDefinition): string {
  return `${app.name}.test`;
}

/**
 * The base URL of a built-in app inside a browser env, e.g. `http://forum.test`: the same in every
 * episode and every process (`.test` is reserved for testing and never resolves), so the URLs in
 * observations — and so the replay buffer's texts — do not depend on a port.
 */
export function builtInSiteUrl(app: WebAppDefinition): string {
  return `http://${builtInSiteHost(app)}`;
}

interface Proxy {
  url: string;
  server: Server;
}

/**
 * Serves our built-in web apps to browser envs at stable URLs ({@link builtInSiteUrl}): every
 * episode's browser context uses a small HTTP proxy on 127.0.0.1 (a free port, started on first
 * use) that answers for `NAME.test` from the app's router, over the episode's own copy of the
 * generated database (the context names its copy in the {@link INSTANCE_HEADER} header).
 * Concurrent episodes never see each other's changes; redirects, cookies and forms behave as
 * with any web server. (Intercepting requests with Playwright routes instead would not do:
 * Chromium sends a fulfilled redirect's next request to the network, playwright#23301.)
 * `dreamgym serve-site` serves an app over plain HTTP for a person instead.
 */
export class BuiltInSites implements SiteProvider {
  private readonly bySite: Map<string, WebAppDefinition>;
  private readonly instances = new Map<string, Map<string, Database.Database>>();
  private proxy: Promise<Proxy> | undefined;
  private closed = false;

  constructor(
    apps: readonly WebAppDefinition[],
    private readonly seed = 0,
  ) {
    this.bySite = new Map(apps.map((app) => [app.site, app]));
  }

  private definition(site: string): WebAppDefinition {
    const definition = this.bySite.get(site);
    if (!definition) {
      throw new TaskError(
        `no built-in web app serves the site "${site}"; built-in sites: ${[...this.bySite.keys()].join(', ')}. ` +
          'Run tasks for other sites against your own deployment (webarena@CONFIG with --site NAME=URL).',
      );
    }
    return definition;
  }

  async open(config: WebArenaConfig): Promise<SiteSession> {
    if (this.closed) throw new TaskError('the built-in sites were closed; open a new env.');
    const definitions = config.sites.map((site) => this.definition(site));
    const proxy = await this.startProxy();
    const id = randomUUID();
    const databases = new Map(
      definitions.map((d) => [d.name, new Database(templateDatabase(d, this.seed))]),
    );
    this.instances.set(id, databases);
    let disposed = false;
    return {
      urls: Object.fromEntries(
        config.sites.map((site, i) => [site, builtInSiteUrl(definitions[i] as WebAppDefinition)]),
      ),
      contextOptions: { proxy: { server: proxy.url } },
      prepare: async (context: BrowserContext) => {
        await context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id });
        if (!config.require_login) return;
        const cookies = definitions.flatMap((definition) => {
          const db = databases.get(definition.name) as Database.Database;
          return Object.entries(definition.loginCookies?.(db) ?? {}).map(([name, value]) => ({
            name,
            value,
            url: builtInSiteUrl(definition),
          }));
        });
        if (cookies.length > 0) await context.addCookies(cookies);
      },
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        this.instances.delete(id);
        for (const db of databases.values()) db.close();
      },
    };
  }

  /** The proxy every episode's context sends its requests to, started once. */
  private startProxy(): Promise<Proxy> {
    this.proxy ??= (async () => {
      const routers = new Map(
        [...this.bySite.values()].map((definition) => [
          builtInSiteHost(definition),
          webAppRouter(definition, (id) => this.instances.get(id)?.get(definition.name)),
        ]),
      );
      const server = serve({
        fetch: (request: Request) => {
          const router = routers.get(new URL(request.url).hostname);
          if (!router) {
            return new Response(`no built-in site at ${new URL(request.url).host}`, {
              status: 502,
            });
          }
          return router.fetch(request);
        },
        hostname: '127.0.0.1',
        port: 0,
      }) as Server;
      await new Promise<void>((resolve, reject) => {
        server.once('listening', resolve);
        server.once('error', reject);
      });
      const { port } = server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, server };
    })();
    return this.proxy;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const databases of this.instances.values())
      for (const db of databases.values()) db.close();
    this.instances.clear();
    const proxy = await this.proxy?.catch(() => undefined);
    if (proxy) {
      proxy.server.closeAllConnections();
      await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
    }
  }
}
