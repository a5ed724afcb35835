import type { BrowserContext, BrowserContextOptions } from 'playwright-core';
import type { WebArenaConfig } from '../webarena/config.ts';

/**
 * The sites one episode runs against, ready for one browser context. For a user's own WebArena
 * deployment the URLs are fixed and `prepare` logs in; for our built-in web apps each session is a
 * private copy of the site's state, so concurrent episodes never see each other's changes.
 */
export interface SiteSession {
  /** Site name as in configs' `sites` (e.g. `reddit`, `shopping_admin`) → base URL, no trailing slash. */
  urls: Record<string, string>;
  /** Options the episode's browser context must be created with (e.g. the proxy that serves the sites). */
  contextOptions?: Pick<BrowserContextOptions, 'proxy'>;
  /** Prepares a fresh context for this episode: headers, cookies, logins. Runs before `start_url` opens. */
  prepare(context: BrowserContext): Promise<void>;
  /** Frees what the episode held. Idempotent. */
  dispose(): Promise<void>;
}

/** Opens a {@link SiteSession} per episode for the sites a task config names. */
export interface SiteProvider {
  /** A session serving every site in `config.sites`; refuses (TaskError) a site it does not serve. */
  open(config: WebArenaConfig): Promise<SiteSession>;
  /** Stops what the provider started (in-process servers). Idempotent. */
  close(): Promise<void>;
}
