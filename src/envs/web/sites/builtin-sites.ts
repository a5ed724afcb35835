import { randomUUID } from 'node:crypto';
import type { BrowserContext } from 'playwright-core';
import { TaskError } from '../../../core/errors.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import type { SiteProvider, SiteSession } from './site-provider.ts';
import {
  INSTANCE_HEADER,
  type RunningWebApp,
  startWebApp,
  type WebAppDefinition,
} from './web-app.ts';

/**
 * Serves our built-in web apps in-process, each started on a free port the first time a task
 * needs it. Every episode gets one instance id and, in every app it uses, a private copy of the
 * generated state; the browser context sends the id with each request ({@link INSTANCE_HEADER}).
 */
export class BuiltInSites implements SiteProvider {
  private readonly bySite: Map<string, WebAppDefinition>;
  private readonly running = new Map<string, Promise<RunningWebApp>>();
  private closed = false;

  constructor(
    apps: readonly WebAppDefinition[],
    private readonly seed = 0,
  ) {
    this.bySite = new Map(apps.map((app) => [app.site, app]));
  }

  /** The running app standing in for `site`, started on first use. */
  app(site: string): Promise<RunningWebApp> {
    const definition = this.bySite.get(site);
    if (!definition) {
      throw new TaskError(
        `no built-in web app serves the site "${site}"; built-in sites: ${[...this.bySite.keys()].join(', ')}. ` +
          'Run tasks for other sites against your own deployment (webarena@CONFIG with --site NAME=URL).',
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
    if (this.closed) throw new TaskError('the built-in sites were closed; open a new env.');
    const id = randomUUID();
    const apps = await Promise.all(config.sites.map((site) => this.app(site)));
    const urls: Record<string, string> = {};
    for (const [i, app] of apps.entries()) {
      app.createInstance(id);
      urls[config.sites[i] as string] = app.url;
    }
    let disposed = false;
    return {
      urls,
      prepare: async (context: BrowserContext) => {
        await context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id });
        if (!config.require_login) return;
        const cookies = apps.flatMap((app) => {
          const db = app.instance(id);
          const login = db && app.definition.loginCookies?.(db);
          return Object.entries(login ?? {}).map(([name, value]) => ({
            name,
            value,
            url: app.url,
          }));
        });
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
    await Promise.all(
      apps.map((app) => (app.status === 'fulfilled' ? app.value.close() : undefined)),
    );
  }
}
