/**
 * A child process for leak tests: opens a BrowserEnv over the test site, resets it, prints the
 * shared browser's pid as `BROWSER_PID <pid>`, then waits to be interrupted; given `close` it
 * closes the env and exits, given `throw` it dies of an uncaught error with the env open.
 */
import { sharedBrowserPid } from '../browser/shared-browser.ts';
import { startSharedTestSite, testSiteEnv } from './fixtures.ts';
import { testSiteTasks } from './test-site-tasks.ts';

const site = await startSharedTestSite();
const env = testSiteEnv(site);
await env.reset({ task: testSiteTasks().tasks('test')[0] });
console.log(`BROWSER_PID ${await sharedBrowserPid()}`);
if (process.argv.includes('close')) {
  await env.close();
  await site.close();
  console.log('CLOSED');
} else if (process.argv.includes('throw')) {
  setTimeout(() => {
    throw new Error('a failing test, say');
  }, 10);
} else {
  setInterval(() => {}, 1000);
}
