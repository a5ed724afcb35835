import { BrowserEnv, type BrowserEnvOptions } from '../browser/browser-env.ts';
import type { SiteProvider } from '../sites/site-provider.ts';
import { INSTANCE_HEADER, startWebApp } from '../sites/web-app.ts';
import { refusedPort, testSite } from './test-site.ts';
import { exactAnswerEvaluator, TEST_SITE_ENV, testSiteTasks } from './test-site-tasks.ts';

/** The test site served in-process, shared by several envs (so their URLs, and texts, agree). */
export interface SharedTestSite {
  /** A provider over the shared site whose `close()` leaves it running (envs close their sites). */
  provider(): SiteProvider;
  /** Stops the site. */
  close(): Promise<void>;
}

/**
 * Starts the test site once on a local port (a real HTTP server, so the env's navigation,
 * timeouts and refused connections are exercised as against a user's own sites); each episode
 * gets a private copy of its state through the instance header. `slowMs` is how long `/slow`
 * takes (default 3000).
 */
export async function startSharedTestSite(
  options: { slowMs?: number } = {},
): Promise<SharedTestSite> {
  const deadUrl = `http://127.0.0.1:${await refusedPort()}/`;
  const app = await startWebApp(testSite({ deadUrl, ...options }));
  let episodes = 0;
  const provider: SiteProvider = {
    async open(config) {
      const id = `episode-${++episodes}`;
      app.createInstance(id);
      return {
        urls: Object.fromEntries(config.sites.map((site) => [site, app.url])),
        prepare: (context) => context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id }),
        dispose: async () => app.disposeInstance(id),
      };
    },
    close: async () => {},
  };
  return { provider: () => provider, close: () => app.close() };
}

/** A BrowserEnv over the test site's tasks, judged by {@link exactAnswerEvaluator} by default. */
export function testSiteEnv(
  site: SharedTestSite,
  options: Partial<Omit<BrowserEnvOptions, 'sites'>> = {},
): BrowserEnv {
  return new BrowserEnv({
    name: TEST_SITE_ENV,
    tasks: testSiteTasks(),
    evaluate: exactAnswerEvaluator,
    ...options,
    sites: site.provider(),
  });
}
