import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { ConfigError, TaskError } from '../../../core/errors.ts';
import { SITE_PLACEHOLDERS, type WebArenaConfig } from '../webarena/config.ts';
import { type LoginHook, webarenaLoginHooks } from './logins.ts';
import type { SiteProvider, SiteSession } from './site-provider.ts';
import { readStorageState, type StorageState } from './storage-state.ts';

/** WebArena's site names (`sites` in configs), each also the lower case of its env variable. */
export const WEBARENA_SITES = Object.keys(SITE_PLACEHOLDERS);

/** What a site name may hold: it becomes part of an env variable and of a placeholder. */
const SITE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * The env variable that holds `site`'s base URL: WebArena's own for its seven sites (`REDDIT`,
 * `SHOPPING_ADMIN`, …), `DREAMGYM_SITE_<NAME>` for a site a config names itself (`registry` →
 * `DREAMGYM_SITE_REGISTRY`; a dash becomes `_`), so a site called `path` never touches `PATH`.
 * `--site NAME=URL` sets it.
 */
export function siteVariable(site: string): string {
  const upper = site.toUpperCase();
  return WEBARENA_SITES.includes(site) ? upper : `DREAMGYM_SITE_${upper.replaceAll('-', '_')}`;
}

function checkedUrl(site: string, url: string, from: string): string {
  if (!SITE_NAME.test(site)) {
    throw new ConfigError(
      `"${site}" in ${from} is not a site name; write the name a config's "sites" uses (letters, digits, _ and -), e.g. --site registry=http://HOST:PORT.`,
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(
      `"${url}" for site ${site} (${from}) is not an http(s) URL; write e.g. ${site}=http://HOST:PORT.`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * Site URLs from `NAME=URL` pairs, as the CLI's repeated `--site` flag gives them
 * (e.g. `reddit=http://localhost:9999`). NAME is any site a config names: one of WebArena's seven
 * or a site of the user's own (`registry=http://localhost:5000`).
 */
export function parseSiteFlags(pairs: readonly string[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new ConfigError(
        `--site "${pair}" is not NAME=URL; write e.g. --site reddit=http://HOST:9999.`,
      );
    }
    const site = pair.slice(0, at).trim();
    urls[site] = checkedUrl(site, pair.slice(at + 1).trim(), `--site ${pair}`);
  }
  return urls;
}

/**
 * Site URLs from their env variables ({@link siteVariable}), those that are set: WebArena's own
 * (`SHOPPING`, `SHOPPING_ADMIN`, `REDDIT`, `GITLAB`, `MAP`, `WIKIPEDIA`, `HOMEPAGE`) and, for
 * the other names in `sites` (a config's own sites), `DREAMGYM_SITE_<NAME>`.
 */
export function sitesFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  sites: readonly string[] = [],
): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const site of new Set([...WEBARENA_SITES, ...sites])) {
    if (!SITE_NAME.test(site)) continue;
    const variable = siteVariable(site);
    const value = env[variable];
    if (value) urls[site] = checkedUrl(site, value, `$${variable}`);
  }
  return urls;
}

/** Sites at URLs you give, and how to log in to them. */
export interface UrlSitesOptions {
  /** Site name → base URL of the user's deployment; e.g. `{ ...sitesFromEnv(), ...parseSiteFlags(flags) }`. */
  urls: Record<string, string>;
  /**
   * Site name → login hook, run before an episode of a `require_login` task for each of its sites
   * that has one. Default: {@link webarenaLoginHooks} with accounts from the env. Sites without a
   * hook (WebArena's map, wikipedia, homepage) need no login.
   */
  logins?: Record<string, LoginHook>;
  /** Where relative `storage_state` paths resolve from. Default: the working directory. */
  storageStateDir?: string;
  /**
   * Log in once per set of sites and give later episodes the saved cookies (default true); false
   * runs the login hooks before every episode, as WebArena does.
   */
  reuseLogins?: boolean;
}

/**
 * The sites of a user's own WebArena deployment at fixed URLs. Before each episode, `prepare`
 * loads the config's `storage_state` file when it exists (it holds the logins, as in WebArena);
 * otherwise, for a `require_login` task, it runs the login hooks of the task's sites. A task
 * naming a site with no URL is refused. Episodes share the sites' state: WebArena's tasks that
 * change a site (`require_reset`) need the user to reset their deployment between runs.
 */
export class UrlSites implements SiteProvider {
  readonly urls: Readonly<Record<string, string>>;
  private readonly logins: Record<string, LoginHook>;
  private readonly savedLogins = new Map<string, Promise<StorageState>>();

  constructor(private readonly options: UrlSitesOptions) {
    this.urls = Object.fromEntries(
      Object.entries(options.urls).map(([site, url]) => [site, checkedUrl(site, url, 'urls')]),
    );
    this.logins = options.logins ?? webarenaLoginHooks();
  }

  async open(config: WebArenaConfig): Promise<SiteSession> {
    const urls: Record<string, string> = {};
    for (const site of config.sites) {
      const url = this.urls[site];
      if (url === undefined) {
        const own = WEBARENA_SITES.includes(site) ? " (WebArena's variable)" : '';
        throw new TaskError(
          `task ${config.task_id} needs the site "${site}" but no URL was given for it; pass ` +
            `--site ${site}=http://HOST:PORT or set ${siteVariable(site)}=http://HOST:PORT${own}.`,
        );
      }
      urls[site] = url;
    }
    return {
      urls,
      prepare: (context) => this.prepare(config, urls, context),
      dispose: async () => undefined,
    };
  }

  private async prepare(
    config: WebArenaConfig,
    urls: Record<string, string>,
    context: BrowserContext,
  ): Promise<void> {
    const file = config.storage_state
      ? resolve(this.options.storageStateDir ?? process.cwd(), config.storage_state)
      : undefined;
    if (file && existsSync(file)) {
      await context.setStorageState(readStorageState(file));
      return;
    }
    if (!config.require_login) return;
    const sites = config.sites.filter((site) => this.logins[site] !== undefined).sort();
    if (sites.length === 0) return;
    if (this.options.reuseLogins === false) {
      await this.logIn(sites, urls, context);
      return;
    }
    const key = sites.join('+');
    let saved = this.savedLogins.get(key);
    if (!saved) {
      saved = this.logIn(sites, urls, context).then(() => context.storageState());
      this.savedLogins.set(key, saved);
      // A failed login is not remembered: the next episode tries again.
      saved.catch(() => this.savedLogins.delete(key));
      await saved;
      return;
    }
    await context.setStorageState(await saved);
  }

  private async logIn(
    sites: readonly string[],
    urls: Record<string, string>,
    context: BrowserContext,
  ): Promise<void> {
    for (const site of sites) await this.logins[site]?.(context, urls[site] as string);
  }

  /** Nothing to stop: the sites are the user's. Forgets saved logins. */
  async close(): Promise<void> {
    this.savedLogins.clear();
  }
}
