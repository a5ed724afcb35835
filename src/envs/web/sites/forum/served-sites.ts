import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { BrowserContext } from 'playwright-core';
import { TaskError } from '../../../../core/errors.ts';
import type { WebArenaConfig } from '../../webarena/config.ts';
import type { SiteProvider, SiteSession } from '../site-provider.ts';
import {
  INSTANCE_HEADER,
  type RunningWebApp,
  startWebApp,
  type WebAppDefinition,
} from '../web-app.ts';

/**
 * Built-in web apps served over real HTTP on a local port ({@link startWebApp}), one database
 * instance per episode chosen by the {@link INSTANCE_HEADER} header, login cookies when the task
 * asks. Unlike `BuiltInSites` (context routes), a form's POST → 303 → GET lands on its target
 * page: with routes, Chromium sends the redirected request to the network first
 * (playwright#23301) and the next observation is its error page. Used by the forum's end-to-end
 * test and success script until the routed provider handles redirects.
 */
export class ServedSites implements SiteProvider {
  private readonly running = new Map<string, Promise<RunningWebApp>>();
  private closed = false;

  constructor(
    private readonly apps: readonly WebAppDefinition[],
    private readonly seed = 0,
  ) {}

  private app(site: string): Promise<RunningWebApp> {
    const definition = this.apps.find((app) => app.site === site);
    if (!definition) {
      throw new TaskError(
        `no built-in web app serves the site "${site}"; served here: ${this.apps.map((a) => a.site).join(', ')}.`,
      );
    }
    let app = this.running.get(site);
    if (!app) {
      app = startWebApp(definition, { seed: this.seed });
      this.running.set(site, app);
    }
    return app;
  }

  async open(config: WebArenaConfig): Promise<SiteSession> {
    if (this.closed) throw new TaskError('the served sites were closed; open a new env.');
    const id = randomUUID();
    const apps = await Promise.all(config.sites.map((site) => this.app(site)));
    const dbs = apps.map((app) => app.createInstance(id));
    let disposed = false;
    return {
      urls: Object.fromEntries(apps.map((app, i) => [config.sites[i] as string, app.url])),
      prepare: async (context: BrowserContext) => {
        await context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id });
        if (!config.require_login) return;
        const cookies = apps.flatMap((app, i) =>
          Object.entries(app.definition.loginCookies?.(dbs[i] as Database.Database) ?? {}).map(
            ([name, value]) => ({ name, value, url: app.url }),
          ),
        );
        if (cookies.length > 0) await context.addCookies(cookies);
      },
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        for (const app of apps) app.disposeInstance(id);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const apps = await Promise.allSettled(this.running.values());
    this.running.clear();
    await Promise.all(apps.map((a) => (a.status === 'fulfilled' ? a.value.close() : undefined)));
  }
}
