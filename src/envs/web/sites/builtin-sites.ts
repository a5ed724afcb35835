import Database from 'better-sqlite3';
import type { BrowserContext, Route } from 'playwright-core';
import { TaskError } from '../../../core/errors.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import type { SiteProvider, SiteSession } from './site-provider.ts';
import { templateDatabase, type WebAppDefinition, webAppRouter } from './web-app.ts';

/**
 * The base URL of a built-in app inside a browser env, e.g. `http://forum.test`: the same in every
 * episode and every process (`.test` is reserved for testing and never resolves), so the URLs in
 * observations — and so the replay buffer's texts — do not depend on a port.
 */
export function builtInSiteUrl(app: WebAppDefinition): string {
  return `http://${app.name}.test`;
}

/**
 * Serves our built-in web apps to browser envs without a port: each episode's context routes
 * requests for `http://NAME.test/…` ({@link builtInSiteUrl}) straight to the app's Hono router
 * over the episode's own copy of the generated database. Concurrent episodes never see each
 * other's changes, and nothing listens on the network. (`dreamgym serve-site` serves an app over
 * HTTP for a person instead.)
 */
export class BuiltInSites implements SiteProvider {
  private readonly bySite: Map<string, WebAppDefinition>;
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
    const apps = config.sites.map((site) => {
      const definition = this.definition(site);
      const db = new Database(templateDatabase(definition, this.seed));
      return { site, definition, db, url: builtInSiteUrl(definition) };
    });
    let disposed = false;
    return {
      urls: Object.fromEntries(apps.map((app) => [app.site, app.url])),
      prepare: async (context: BrowserContext) => {
        for (const app of apps) {
          const router = webAppRouter(app.definition, () => (disposed ? undefined : app.db));
          await context.route(`${app.url}/**`, (route) => fulfil(route, router.fetch));
          const login = config.require_login ? app.definition.loginCookies?.(app.db) : undefined;
          const cookies = Object.entries(login ?? {}).map(([name, value]) => ({
            name,
            value,
            url: app.url,
          }));
          if (cookies.length > 0) await context.addCookies(cookies);
        }
      },
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        for (const app of apps) app.db.close();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Answers a browser request with the app's response, as a server would. */
async function fulfil(
  route: Route,
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<void> {
  const request = route.request();
  const method = request.method();
  const headers = await request.allHeaders();
  const body = method === 'GET' || method === 'HEAD' ? undefined : request.postDataBuffer();
  let response: Response;
  try {
    response = await fetch(new Request(request.url(), { method, headers, body: body ?? null }));
  } catch (error) {
    await route.fulfill({ status: 500, body: `internal error: ${(error as Error).message}` });
    return;
  }
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  // Several cookies travel as one header with one cookie a line, as Playwright expects.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies.join('\n');
  await route
    .fulfill({
      status: response.status,
      headers: out,
      body: Buffer.from(await response.arrayBuffer()),
    })
    .catch(() => undefined);
}
