import { BrowserEnv, type BrowserEnvOptions } from '../browser/browser-env.ts';
import { BuiltInSites } from '../sites/builtin-sites.ts';
import type { SiteProvider } from '../sites/site-provider.ts';
import { refusedPort, testSite } from './test-site.ts';
import { exactAnswerEvaluator, TEST_SITE_ENV, testSiteTasks } from './test-site-tasks.ts';

/** The test site served in-process, shared by several envs (so their URLs, and texts, agree). */
export interface SharedTestSite {
  /** A provider over the shared site whose `close()` leaves it running (envs close their sites). */
  provider(): SiteProvider;
  /** Stops the site. */
  close(): Promise<void>;
}

/** Starts the test site once; `slowMs` is how long its `/slow` page takes (default 3000). */
export async function startSharedTestSite(
  options: { slowMs?: number } = {},
): Promise<SharedTestSite> {
  const deadUrl = `http://127.0.0.1:${await refusedPort()}/`;
  const sites = new BuiltInSites([testSite({ deadUrl, ...options })]);
  return {
    provider: () => ({ open: (config) => sites.open(config), close: async () => {} }),
    close: () => sites.close(),
  };
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
