import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from '../../browser/chromium.ts';
import { INSTANCE_HEADER, type RunningWebApp, startWebApp } from '../web-app.ts';
import { forumApp } from './forum-app.ts';
import { demoPassword } from './generate.ts';

/**
 * The forum in a real Chromium: forms, redirects, cookies and flash messages as a browser does
 * them. Without a browser these tests fail with the launcher's message, which names the fix.
 */
describe('forum in a real browser', () => {
  let browser: LaunchedBrowser;
  let app: RunningWebApp;
  let me: string;

  beforeAll(async () => {
    app = await startWebApp(forumApp);
    me = (
      database('default').prepare('SELECT name FROM users WHERE is_default = 1').get() as {
        name: string;
      }
    ).name;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  function database(id: string) {
    const db = app.instance(id);
    if (!db) throw new Error(`no instance ${id}`);
    return db;
  }

  /** Logs `context` in as the default user of instance `id`, as BuiltInSites does. */
  async function logIn(context: BrowserContext, id: string) {
    const cookies = forumApp.loginCookies?.(database(id)) ?? {};
    await context.addCookies(
      Object.entries(cookies).map(([name, value]) => ({ name, value, url: app.url })),
    );
  }

  /** A context on episode instance `id` (a fresh copy of the site), logged out. */
  async function episode(id: string): Promise<BrowserContext> {
    app.createInstance(id);
    const context = await browser.browser.newContext();
    await context.setExtraHTTPHeaders({ [INSTANCE_HEADER]: id });
    return context;
  }

  it('logs in through the form, then posts, votes and comments', async () => {
    const context = await episode('browser-a');
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/submit`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.getByLabel('Username').fill(me);
      await page.getByLabel('Password').fill(demoPassword(me));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/submit$/);
      await expect(page.getByRole('status').textContent()).resolves.toContain('Welcome back');

      await page.getByLabel('Forum').selectOption('sailing');
      await page.getByLabel('Title').fill('Reefing in a hurry');
      await page.getByLabel('Body').fill('Practice it at the dock first.');
      await page.getByRole('button', { name: 'Create post' }).click();
      await page.waitForURL(/\/f\/sailing\/\d+$/);
      expect(await page.locator('#post-title').textContent()).toBe('Reefing in a hurry');

      await page.getByRole('button', { name: 'Downvote' }).click();
      await page.waitForLoadState();
      expect(await page.locator('#post').getAttribute('data-my-vote')).toBe('down');
      expect(await page.locator('#post-score').textContent()).toBe('Score: -1');

      await page.getByLabel('Add a comment').fill('Agreed, and reef early.');
      await page.getByRole('button', { name: 'Post comment' }).click();
      await page.waitForLoadState();
      expect(await page.locator(`.comment[data-author="${me}"] .comment-body`).textContent()).toBe(
        'Agreed, and reef early.',
      );
    } finally {
      await context.close();
    }
  });

  it('searches, follows a result, and deletes an own post behind the confirmation', async () => {
    const context = await episode('browser-b');
    try {
      await logIn(context, 'browser-b');
      const mine = database('browser-b')
        .prepare('SELECT title FROM posts WHERE author_id = 1 ORDER BY id LIMIT 1')
        .get() as { title: string };
      const page = await context.newPage();
      await page.goto(app.url);
      await page.getByRole('searchbox', { name: 'Search' }).fill(mine.title);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/search\?q=/);
      await page.getByRole('link', { name: mine.title, exact: true }).first().click();
      await page.waitForURL(/\/f\/[a-z]+\/\d+$/);
      const postUrl = page.url();
      await page.getByRole('link', { name: 'Delete post' }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Delete this post?',
      );
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForLoadState();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Your post was deleted.');
      await page.goto(postUrl);
      expect(await page.locator('#post-title').textContent()).toBe('[deleted]');
    } finally {
      await context.close();
    }
  });

  it('keeps concurrent episodes apart: a change in one is absent from the other', async () => {
    const [a, b] = await Promise.all([episode('browser-c'), episode('browser-d')]);
    try {
      await Promise.all([logIn(a, 'browser-c'), logIn(b, 'browser-d')]);
      const [pageA, pageB] = await Promise.all([a.newPage(), b.newPage()]);
      await pageA.goto(`${app.url}/settings`);
      await pageA.getByLabel('New bio').fill('Only in episode C');
      await pageA.getByRole('button', { name: 'Save bio' }).click();
      await pageA.waitForURL(/\/user\//);
      expect(await pageA.locator('#bio').textContent()).toBe('Only in episode C');
      await pageB.goto(`${app.url}/user/${me}`);
      expect(await pageB.locator('#bio').textContent()).not.toBe('Only in episode C');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
