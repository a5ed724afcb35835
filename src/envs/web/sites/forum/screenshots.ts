/**
 * Saves screenshots of the forum's main pages to docs/img/forum-*.png:
 * `npx tsx src/envs/web/sites/forum/screenshots.ts`. Serves seed 0 on a free port, logged in as
 * the default user, and shoots each page at 1000×700 in a headless Chromium.
 */
import { mkdir } from 'node:fs/promises';
import { launchChromium } from '../../browser/chromium.ts';
import { startWebApp } from '../web-app.ts';
import { forumApp } from './forum-app.ts';

const PAGES: ReadonlyArray<readonly [name: string, path: string]> = [
  ['front', '/'],
  ['forum', '/f/cooking?sort=top'],
  ['post', '/f/cooking/16'],
  ['profile', '/user/rowan_badger'],
  ['search', '/search?q=sourdough'],
  ['submit', '/submit?forum=cooking'],
];

const app = await startWebApp(forumApp);
const browser = await launchChromium();
try {
  await mkdir('docs/img', { recursive: true });
  const context = await browser.browser.newContext({ viewport: { width: 1000, height: 700 } });
  const db = app.instance('default');
  const cookies = db ? (forumApp.loginCookies?.(db) ?? {}) : {};
  await context.addCookies(
    Object.entries(cookies).map(([name, value]) => ({ name, value, url: app.url })),
  );
  const page = await context.newPage();
  for (const [name, path] of PAGES) {
    await page.goto(`${app.url}${path}`);
    await page.screenshot({ path: `docs/img/forum-${name}.png` });
    console.log(`docs/img/forum-${name}.png`);
  }
} finally {
  await browser.close();
  await app.close();
}
