import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedBrowser, launchChromium } from '../browser/chromium.ts';
import type { WebArenaConfig } from '../webarena/config.ts';
import { BuiltInSites, builtInSiteUrl } from './builtin-sites.ts';
import type { WebAppDefinition } from './web-app.ts';

/** A counter site: a form POSTs an increment and redirects (303) to the page showing the count. */
const counter: WebAppDefinition = {
  name: 'counter',
  site: 'homepage',
  description: 'a counter',
  build(db) {
    db.exec('CREATE TABLE counts (n INTEGER NOT NULL); INSERT INTO counts VALUES (0);');
  },
  routes(app) {
    app.get('/', (c) => {
      const { n } = c.var.db.prepare('SELECT n FROM counts').get() as { n: number };
      const who = c.req.header('cookie')?.includes('user=ada') ? 'ada' : 'nobody';
      return c.html(
        `<title>Count ${n}</title><h1>Count ${n}</h1><p>user ${who}</p><form method="post" action="/add"><button>Add</button></form>`,
      );
    });
    app.post('/add', (c) => {
      c.var.db.prepare('UPDATE counts SET n = n + 1').run();
      return c.redirect('/', 303);
    });
  },
  loginCookies: () => ({ user: 'ada' }),
};

const config = (login: boolean) =>
  ({
    task_id: 1,
    sites: ['homepage'],
    start_url: '__HOMEPAGE__',
    intent: 'add one',
    require_login: login,
    eval: { eval_types: ['string_match'], reference_answers: { exact_match: '1' } },
  }) as WebArenaConfig;

describe('BuiltInSites', () => {
  let launched: LaunchedBrowser;
  const sites = new BuiltInSites([counter]);
  beforeAll(async () => {
    launched = await launchChromium();
  });
  afterAll(async () => {
    await sites.close();
    await launched?.close();
  });

  const openPage = async (login = false) => {
    const session = await sites.open(config(login));
    const context = await launched.browser.newContext(session.contextOptions);
    await session.prepare(context);
    const page = await context.newPage();
    await page.goto(session.urls.homepage as string);
    return { session, context, page };
  };

  it('serves each app at a stable URL with no port, through the session proxy', async () => {
    const { session, context, page } = await openPage();
    expect(session.urls.homepage).toBe('http://counter.test');
    expect(builtInSiteUrl(counter)).toBe('http://counter.test');
    expect(page.url()).toBe('http://counter.test/');
    expect(await page.title()).toBe('Count 0');
    await context.close();
    await session.dispose();
  });

  it('follows a form POST → 303 → GET to the page it names, as a server would', async () => {
    const { session, context, page } = await openPage();
    await Promise.all([page.waitForURL('http://counter.test/'), page.click('button')]);
    await page.waitForLoadState();
    expect(await page.title()).toBe('Count 1');
    await context.close();
    await session.dispose();
  });

  it('gives every episode its own copy of the state', async () => {
    const a = await openPage();
    const b = await openPage();
    await a.page.click('button');
    await a.page.waitForFunction("document.title === 'Count 1'");
    await a.page.click('button');
    await a.page.waitForFunction("document.title === 'Count 2'");
    await b.page.reload();
    expect(await b.page.title()).toBe('Count 0');
    for (const x of [a, b]) {
      await x.context.close();
      await x.session.dispose();
    }
    const c = await openPage();
    expect(await c.page.title()).toBe('Count 0');
    await c.context.close();
    await c.session.dispose();
  });

  it('logs the default user in when the task requires it, and only then', async () => {
    const anonymous = await openPage(false);
    expect(await anonymous.page.textContent('p')).toBe('user nobody');
    const logged = await openPage(true);
    expect(await logged.page.textContent('p')).toBe('user ada');
    for (const x of [anonymous, logged]) {
      await x.context.close();
      await x.session.dispose();
    }
  });

  it('a disposed episode is refused, and a task naming another site is a TaskError', async () => {
    const { session, context, page } = await openPage();
    await session.dispose();
    const response = await page.reload();
    expect(response?.status()).toBe(410);
    await context.close();
    await expect(sites.open({ ...config(false), sites: ['gitlab'] })).rejects.toThrow(
      /no built-in web app serves the site "gitlab"/,
    );
  });
});
