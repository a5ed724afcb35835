import type { BrowserContext, Locator, Page } from 'playwright-core';
import { TaskError } from '../../../core/errors.ts';

/**
 * Logs one site in within `context` (the session cookies then stay in the context). Runs before
 * the episode's start page opens, as WebArena's auto-login (`browser_env/auto_login.py`) does.
 * `siteUrl` is the site's base URL, no trailing slash.
 */
export type LoginHook = (context: BrowserContext, siteUrl: string) => Promise<void>;

/** A site account. */
export interface SiteAccount {
  username: string;
  password: string;
}

/** The sites WebArena logs into, each with the env variables its account is read from. */
export const WEBARENA_LOGIN_SITES = ['shopping', 'shopping_admin', 'reddit', 'gitlab'] as const;
export type WebArenaLoginSite = (typeof WEBARENA_LOGIN_SITES)[number];

/** `WEBARENA_<SITE>_USERNAME` and `WEBARENA_<SITE>_PASSWORD`, e.g. `WEBARENA_REDDIT_PASSWORD`. */
export function accountVariables(site: string): { username: string; password: string } {
  const prefix = `WEBARENA_${site.toUpperCase()}`;
  return { username: `${prefix}_USERNAME`, password: `${prefix}_PASSWORD` };
}

/**
 * The accounts named by `WEBARENA_<SITE>_USERNAME` / `WEBARENA_<SITE>_PASSWORD` for WebArena's
 * login sites. WebArena's own deployment uses the default accounts listed in its
 * `browser_env/env_config.py` (`ACCOUNTS`); we ship none, so a site whose variables are unset
 * has no account and its login fails with the variables to set.
 */
export function accountsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<WebArenaLoginSite, SiteAccount>> {
  const accounts: Partial<Record<WebArenaLoginSite, SiteAccount>> = {};
  for (const site of WEBARENA_LOGIN_SITES) {
    const names = accountVariables(site);
    const username = env[names.username];
    const password = env[names.password];
    if (username && password) accounts[site] = { username, password };
  }
  return accounts;
}

/** How one site's login form is filled: where it is, its fields, its submit button. */
interface LoginForm {
  path: string;
  username(page: Page): Locator;
  password(page: Page): Locator;
  submit(page: Page): Locator;
}

/**
 * The login forms of WebArena's sites, found the way WebArena's `auto_login.py` finds them
 * (labels, placeholders, test ids), so the hooks work on WebArena's Docker images.
 */
const FORMS: Record<WebArenaLoginSite, LoginForm> = {
  shopping: {
    path: '/customer/account/login/',
    username: (page) => page.getByLabel('Email', { exact: true }),
    password: (page) => page.getByLabel('Password', { exact: true }),
    submit: (page) => page.getByRole('button', { name: 'Sign In' }),
  },
  shopping_admin: {
    path: '',
    username: (page) => page.getByPlaceholder('user name'),
    password: (page) => page.getByPlaceholder('password'),
    submit: (page) => page.getByRole('button', { name: 'Sign in' }),
  },
  reddit: {
    path: '/login',
    username: (page) => page.getByLabel('Username'),
    password: (page) => page.getByLabel('Password'),
    submit: (page) => page.getByRole('button', { name: 'Log in' }),
  },
  gitlab: {
    path: '/users/sign_in',
    username: (page) => page.getByTestId('username-field'),
    password: (page) => page.getByTestId('password-field'),
    submit: (page) => page.getByTestId('sign-in-button'),
  },
};

export interface LoginHookOptions {
  /** Longest wait for each page and field. Default 30 000 ms. */
  timeoutMs?: number;
}

/**
 * A hook that fills `site`'s login form with `account` (or, when it is undefined, fails naming
 * the variables to set), submits it, and fails when the form is still shown afterwards.
 */
export function formLoginHook(
  site: WebArenaLoginSite,
  account: SiteAccount | undefined,
  options: LoginHookOptions = {},
): LoginHook {
  const form = FORMS[site];
  const timeout = options.timeoutMs ?? 30_000;
  return async (context, siteUrl) => {
    const names = accountVariables(site);
    if (!account) {
      throw new TaskError(
        `the task needs a login to ${site} (${siteUrl}) but no account was given: set ${names.username} ` +
          `and ${names.password} (WebArena's default accounts are in its browser_env/env_config.py), ` +
          "or give the config's storage_state file.",
      );
    }
    const page = await context.newPage();
    try {
      const loginUrl = `${siteUrl}${form.path}`;
      try {
        await page.goto(loginUrl, { timeout });
        await form.username(page).fill(account.username, { timeout });
        await form.password(page).fill(account.password, { timeout });
        await form.submit(page).click({ timeout });
        await page.waitForLoadState('load', { timeout });
      } catch (error) {
        throw new TaskError(
          `login to ${site} at ${loginUrl} failed: ${(error as Error).message.split('\n')[0]}. ` +
            'Check the site URL and that the site is up, or give a storage_state file.',
        );
      }
      if (await form.password(page).isVisible()) {
        throw new TaskError(
          `login to ${site} at ${loginUrl} as "${account.username}" was refused (the login form is ` +
            `still shown); check ${names.username} and ${names.password}.`,
        );
      }
    } finally {
      await page.close().catch(() => undefined);
    }
  };
}

/**
 * WebArena's auto-login as hooks, one per login site, with accounts from `accounts` (default: the
 * `WEBARENA_<SITE>_USERNAME` / `_PASSWORD` variables). Sites without an account get a hook that
 * fails with the variables to set, so a task needing that login never runs logged out.
 */
export function webarenaLoginHooks(
  accounts: Partial<Record<WebArenaLoginSite, SiteAccount>> = accountsFromEnv(),
  options: LoginHookOptions = {},
): Record<WebArenaLoginSite, LoginHook> {
  return Object.fromEntries(
    WEBARENA_LOGIN_SITES.map((site) => [site, formLoginHook(site, accounts[site], options)]),
  ) as Record<WebArenaLoginSite, LoginHook>;
}
