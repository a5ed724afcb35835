import { afterAll, beforeAll, describe, it } from 'vitest';
import { runEnvConformance } from '../../conformance.ts';
import { type SharedTestSite, startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { solveTestSite, testSiteTasks } from '../testing/test-site-tasks.ts';

let site: SharedTestSite;
beforeAll(async () => {
  site = await startSharedTestSite();
});
afterAll(async () => {
  await site?.close();
});

// One site for every env, so the URLs in the texts agree between envs (the suite compares them).
runEnvConformance(
  {
    name: 'BrowserEnv over the test site',
    makeEnv: () => testSiteEnv(site, { actionTimeoutMs: 20_000 }),
    task: testSiteTasks().tasks('test')[1],
    invalidAction: 'frobnicate [the moon]',
    solve: solveTestSite,
    maxSteps: 12,
  },
  { describe, it },
);
