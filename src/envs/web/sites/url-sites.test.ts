import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, TaskError } from '../../../core/errors.ts';
import { type LaunchedBrowser, launchChromium } from '../browser/chromium.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from '../webarena/config.ts';
import { type ServedApp, serveApp } from '../webarena/testing/serve-app.ts';
import { accountsFromEnv, type LoginHook, webarenaLoginHooks } from './logins.ts';
import { readStorageState } from './storage-state.ts';
import { parseSiteFlags, sitesFromEnv, siteVariable, UrlSites } from './url-sites.ts';

/**
 * Login forms shaped like those WebArena's auto-login fills (labels, placeholders, test ids), one
 * per site at the path WebArena uses; the right password sets a `session` cookie.
 */
function loginSite(logins: string[]): Hono {
  const app = new Hono();
  const forms: Record<string, { path: string; html: string }> = {
    reddit: {
      path: '/login',
      html: '<label for="u">Username</label><input id="u" name="username"><label for="p">Password</label><input id="p" type="password" name="password"><button>Log in</button>',
    },
    shopping: {
      path: '/customer/account/login/',
      html: '<label for="u">Email</label><input id="u" name="username"><label for="p">Password</label><input id="p" type="password" name="password"><button>Sign In</button>',
    },
    shopping_admin: {
      path: '/admin',
      html: '<input placeholder="user name" name="username"><input placeholder="password" type="password" name="password"><button>Sign in</button>',
    },
    gitlab: {
      path: '/users/sign_in',
      html: '<input data-testid="username-field" name="username"><input data-testid="password-field" type="password" name="password"><button data-testid="sign-in-button">Go</button>',
    },
  };
  for (const [site, form] of Object.entries(forms)) {
    app.get(form.path, (c) => c.html(`<form method="post">${form.html}</form>`));
    app.post(form.path, async (c) => {
      const body = await c.req.parseBody();
      logins.push(`${site}:${body.username}`);
      if (body.password !== 'secret')
        return c.html(`<p>Wrong password</p><form method="post">${form.html}</form>`);
      setCookie(c, 'session', `${site}-${body.username}`, { path: '/' });
      return c.redirect('/');
    });
  }
  app.get('/', (c) => c.html(`<p>Welcome ${getCookie(c, 'session') ?? 'stranger'}</p>`));
  return app;
}

const dir = mkdtempSync(join(tmpdir(), 'url-sites-'));
const logins: string[] = [];
let browser: LaunchedBrowser;
let site: ServedApp;
let context: BrowserContext;

beforeAll(async () => {
  // No browser is a failure naming the fix (BrowserNotFoundError), never a skip.
  browser = await launchChromium();
  site = await serveApp(loginSite(logins));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  logins.length = 0;
  context = await browser.browser.newContext();
});
afterEach(async () => {
  await context.close();
});

function config(fields: Partial<Record<string, unknown>>): WebArenaConfig {
  return WebArenaConfigSchema.parse({
    task_id: 7,
    sites: ['reddit'],
    start_url: '__REDDIT__',
    intent: 'Check my account',
    eval: { eval_types: ['string_match'], reference_answers: { exact_match: 'x' } },
    ...fields,
  });
}

async function sessionCookie(ctx: BrowserContext): Promise<string | undefined> {
  return (await ctx.cookies()).find((c) => c.name === 'session')?.value;
}

describe('site URLs', () => {
  it('parses --site NAME=URL pairs and WebArena env variables', () => {
    expect(parseSiteFlags(['reddit=http://localhost:9999/', 'gitlab = http://h:8023'])).toEqual({
      reddit: 'http://localhost:9999',
      gitlab: 'http://h:8023',
    });
    expect(
      sitesFromEnv({ SHOPPING_ADMIN: 'http://h:7780/admin', MAP: 'http://h:3000', PATH: '/bin' }),
    ).toEqual({
      shopping_admin: 'http://h:7780/admin',
      map: 'http://h:3000',
    });
  });

  it("takes any site a config names; a site of the config's own has a variable of its own", () => {
    expect(parseSiteFlags(['registry=http://h:5000/', 'my-docs=https://docs.h'])).toEqual({
      registry: 'http://h:5000',
      'my-docs': 'https://docs.h',
    });
    expect(siteVariable('reddit')).toBe('REDDIT');
    expect(siteVariable('shopping_admin')).toBe('SHOPPING_ADMIN');
    expect(siteVariable('registry')).toBe('DREAMGYM_SITE_REGISTRY');
    expect(siteVariable('path')).toBe('DREAMGYM_SITE_PATH');
    expect(siteVariable('my-docs')).toBe('DREAMGYM_SITE_MY_DOCS');
    const env = {
      DREAMGYM_SITE_REGISTRY: 'http://h:5000',
      REGISTRY: 'http://other',
      REDDIT: 'http://r',
    };
    // Only the sites asked for besides WebArena's, and only through their own variables.
    expect(sitesFromEnv(env, ['registry'])).toEqual({
      registry: 'http://h:5000',
      reddit: 'http://r',
    });
    expect(sitesFromEnv(env)).toEqual({ reddit: 'http://r' });
  });

  it('refuses a malformed pair, a name that is no site name and a non-http URL, saying what to write', () => {
    expect(() => parseSiteFlags(['reddit'])).toThrow(/is not NAME=URL; write e.g. --site reddit=/);
    expect(() => parseSiteFlags(['my site=http://h'])).toThrow(
      /"my site" in --site my site=http:\/\/h is not a site name; .*letters, digits, _ and -/,
    );
    expect(() => parseSiteFlags(['map=localhost:3000'])).toThrow(ConfigError);
    expect(() => sitesFromEnv({ REDDIT: 'ftp://h' })).toThrow(/\$REDDIT/);
    expect(() => sitesFromEnv({ DREAMGYM_SITE_REGISTRY: 'h:1' }, ['registry'])).toThrow(
      /\$DREAMGYM_SITE_REGISTRY/,
    );
  });

  it('opens a session with the task sites, and refuses a site with no URL', async () => {
    const sites = new UrlSites({ urls: { reddit: `${site.url}/` }, logins: {} });
    const session = await sites.open(config({ sites: ['reddit'] }));
    expect(session.urls).toEqual({ reddit: site.url });
    const refused = sites.open(config({ sites: ['reddit', 'gitlab'] }));
    await expect(refused).rejects.toThrow(TaskError);
    await expect(refused).rejects.toThrow(
      /task 7 needs the site "gitlab" .*--site gitlab=http:\/\/HOST:PORT or set GITLAB=/,
    );
  });
});

describe('logins', () => {
  const account = { username: 'alice', password: 'secret' };

  it("WebArena's login hooks fill each site's form and leave the session in the context", async () => {
    const hooks = webarenaLoginHooks({
      reddit: account,
      shopping: account,
      shopping_admin: account,
      gitlab: account,
    });
    for (const name of ['reddit', 'shopping', 'shopping_admin', 'gitlab'] as const) {
      const ctx = await browser.browser.newContext();
      try {
        // WebArena's admin URL is the site URL itself (http://HOST:7780/admin).
        await hooks[name](ctx, name === 'shopping_admin' ? `${site.url}/admin` : site.url);
        expect(await sessionCookie(ctx)).toBe(`${name}-alice`);
        expect(ctx.pages()).toEqual([]);
      } finally {
        await ctx.close();
      }
    }
  });

  it('a refused login and a missing account fail naming the variables to set', async () => {
    const hooks = webarenaLoginHooks({ reddit: { ...account, password: 'wrong' } });
    await expect(hooks.reddit(context, site.url)).rejects.toThrow(
      /login to reddit .* was refused .*WEBARENA_REDDIT_USERNAME and WEBARENA_REDDIT_PASSWORD/,
    );
    await expect(hooks.gitlab(context, site.url)).rejects.toThrow(
      /no account was given: set WEBARENA_GITLAB_USERNAME and WEBARENA_GITLAB_PASSWORD/,
    );
    expect(await sessionCookie(context)).toBeUndefined();
  });

  it('reads accounts from WEBARENA_<SITE>_USERNAME / _PASSWORD', () => {
    expect(
      accountsFromEnv({
        WEBARENA_REDDIT_USERNAME: 'u',
        WEBARENA_REDDIT_PASSWORD: 'p',
        WEBARENA_GITLAB_USERNAME: 'only-a-name',
      }),
    ).toEqual({ reddit: { username: 'u', password: 'p' } });
  });

  it('runs the login hooks of a require_login task once, then reuses the saved session', async () => {
    const sites = new UrlSites({
      urls: { reddit: site.url, map: 'http://127.0.0.1:9' },
      logins: webarenaLoginHooks({ reddit: account }),
    });
    const task = config({ sites: ['reddit', 'map'], require_login: true });
    const second = await browser.browser.newContext();
    const third = await browser.browser.newContext();
    try {
      // Two episodes starting together share one login.
      await Promise.all([
        sites.open(task).then((s) => s.prepare(context)),
        sites.open(task).then((s) => s.prepare(second)),
      ]);
      await (await sites.open(task)).prepare(third);
      for (const ctx of [context, second, third]) {
        expect(await sessionCookie(ctx)).toBe('reddit-alice');
      }
    } finally {
      await second.close();
      await third.close();
    }
    expect(logins).toEqual(['reddit:alice']);

    const fresh = await browser.browser.newContext();
    try {
      await (await sites.open(config({ sites: ['reddit'], require_login: false }))).prepare(fresh);
      expect(await sessionCookie(fresh)).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });

  it('with reuseLogins false logs in before every episode, as WebArena does', async () => {
    const calls: string[] = [];
    const hook: LoginHook = async (_ctx, url) => {
      calls.push(url);
    };
    const sites = new UrlSites({
      urls: { reddit: site.url },
      logins: { reddit: hook },
      reuseLogins: false,
    });
    const task = config({ require_login: true });
    await (await sites.open(task)).prepare(context);
    await (await sites.open(task)).prepare(context);
    expect(calls).toEqual([site.url, site.url]);
  });
});

describe('storage_state', () => {
  it("loads cookies and local storage from the config's file instead of logging in", async () => {
    const origin = new URL(site.url).origin;
    writeFileSync(
      join(dir, 'reddit_state.json'),
      JSON.stringify({
        cookies: [{ name: 'session', value: 'saved', domain: '127.0.0.1', path: '/' }],
        origins: [{ origin, localStorage: [{ name: 'theme', value: 'dark' }] }],
      }),
    );
    const hook: LoginHook = async () => {
      throw new Error('the storage state should make the login unnecessary');
    };
    const sites = new UrlSites({
      urls: { reddit: site.url },
      logins: { reddit: hook },
      storageStateDir: dir,
    });
    await (
      await sites.open(config({ require_login: true, storage_state: './reddit_state.json' }))
    ).prepare(context);
    expect(await sessionCookie(context)).toBe('saved');
    const page = await context.newPage();
    await page.goto(site.url);
    expect(await page.evaluate('localStorage.getItem("theme")')).toBe('dark');
    expect(await page.textContent('p')).toBe('Welcome saved');
  });

  it('a missing file falls back to the login hooks; a malformed one names the field', async () => {
    const calls: string[] = [];
    const sites = new UrlSites({
      urls: { reddit: site.url },
      logins: { reddit: async (_ctx, url) => void calls.push(url) },
      storageStateDir: dir,
    });
    await (
      await sites.open(config({ require_login: true, storage_state: './.auth/none.json' }))
    ).prepare(context);
    expect(calls).toEqual([site.url]);

    writeFileSync(join(dir, 'bad_state.json'), JSON.stringify({ cookies: [{ name: 'x' }] }));
    expect(() => readStorageState(join(dir, 'bad_state.json'))).toThrow(
      /bad_state\.json: field cookies\.0\.value/,
    );
  });
});
