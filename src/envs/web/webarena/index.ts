import { ConfigError } from '../../../core/errors.ts';
import type { LlmClient } from '../../../llm/client.ts';
import type { EnvEntry, EnvOptions } from '../../env.ts';
import { BrowserEnv, WEBARENA_MAX_STEPS } from '../browser/browser-env.ts';
import type { ViewportMode } from '../browser/browser-episode.ts';
import { accountsFromEnv, type LoginHook, webarenaLoginHooks } from '../sites/logins.ts';
import { parseSiteFlags, sitesFromEnv, UrlSites } from '../sites/url-sites.ts';
import { makeEvaluator } from './evaluate.ts';
import { loadWebArenaConfigs } from './load.ts';
import { type WebArenaSplitRule, WebArenaTaskSource } from './tasks.ts';

export { type EvaluatorOptions, evaluateTask, makeEvaluator } from './evaluate.ts';
export { type LoadedConfig, loadWebArenaConfigs, WebArenaConfigError } from './load.ts';
export { WebArenaTaskSource, webarenaTask, webarenaTaskConfig } from './tasks.ts';

/** Prefix of env names that run WebArena task configs: `webarena@CONFIG_DIR_OR_FILE`. */
export const WEBARENA_PREFIX = 'webarena@';

const USAGE =
  'write webarena@PATH, PATH a WebArena config file, a JSON array of configs (WebArena-Lite) or a directory of them';

/** True for names of the form `webarena@…`. */
export function isWebArenaRef(name: string): boolean {
  return name.startsWith(WEBARENA_PREFIX);
}

/** The config path of `webarena@PATH`. */
export function parseWebArenaRef(ref: string): string {
  const path = isWebArenaRef(ref) ? ref.slice(WEBARENA_PREFIX.length).trim() : '';
  if (!path) throw new ConfigError(`"${ref}" names no WebArena configs; ${USAGE}.`);
  return path;
}

/** Where the WebArena sites are, their logins, the judge LLM for fuzzy-match evaluators, and how configs split into train and test. */
export interface WebArenaEntryOptions {
  /**
   * `--site NAME=URL` pairs, for any site the configs name (WebArena's or their own); they
   * override the env variables.
   */
  sites?: readonly string[];
  /**
   * Where the site variables are read (WebArena's `SHOPPING`, `SHOPPING_ADMIN`, `REDDIT`,
   * `GITLAB`, `MAP`, `WIKIPEDIA`, `HOMEPAGE`; `DREAMGYM_SITE_<NAME>` for a config's own sites), and
   * the login accounts (`WEBARENA_<SITE>_USERNAME` / `_PASSWORD`). Default `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Judge of fuzzy_match checks; without one they are undecided (reward 0, `undecided: true`). */
  judge?: LlmClient;
  /** How tasks divide into train and test (default: every task in both). */
  splitBy?: WebArenaSplitRule;
  /** Under `splitBy: 'template'`, the share of templates in test. Default 0.2. */
  testFraction?: number;
  /** Where configs' relative `storage_state` paths resolve from. Default: the working directory. */
  storageStateDir?: string;
  /** Login hooks per site instead of WebArena's form logins. */
  logins?: Record<string, LoginHook>;
  /**
   * What observations show: `whole` (default), the whole document; `visible`, only what is in
   * the viewport, as WebArena's experiments run (`current_viewport_only=True`).
   */
  viewport?: ViewportMode;
}

/**
 * The registry entry of `webarena@PATH`: WebArena(-Lite) task configs run in a {@link BrowserEnv}
 * against the user's own WebArena sites, scored by WebArena's evaluators. The configs are read
 * (and checked) now; a task naming a site without a URL is refused when it is reset. Marked
 * `remote`: our scripted experts know only our built-in sites, not WebArena's.
 */
export function webarenaEntry(ref: string, options: WebArenaEntryOptions = {}): EnvEntry {
  const path = parseWebArenaRef(ref);
  const configs = loadWebArenaConfigs(path).map((loaded) => loaded.config);
  const env = options.env ?? process.env;
  const named = [...new Set(configs.flatMap((config) => config.sites))].sort();
  const urls = { ...sitesFromEnv(env, named), ...parseSiteFlags(options.sites ?? []) };
  const source = new WebArenaTaskSource(configs, {
    env: ref,
    ...(options.splitBy !== undefined && { splitBy: options.splitBy }),
    ...(options.testFraction !== undefined && { testFraction: options.testFraction }),
  });
  // One provider for every env of the entry, so a set of sites is logged in once, not per env.
  const sites = new UrlSites({
    urls,
    logins: options.logins ?? webarenaLoginHooks(accountsFromEnv(env)),
    ...(options.storageStateDir !== undefined && { storageStateDir: options.storageStateDir }),
  });
  const evaluate = makeEvaluator(options.judge ? { judge: options.judge } : {});
  const missing = named.filter((site) => urls[site] === undefined);
  const description = [
    `WebArena task configs from ${path} (${configs.length} tasks; sites ${named.join(', ')})`,
    missing.length > 0
      ? `no URL for ${missing.join(', ')} (--site NAME=URL)`
      : 'all site URLs given',
    options.judge
      ? `fuzzy_match judged by ${options.judge.id}`
      : 'fuzzy_match undecided (no judge)',
  ].join('; ');
  return {
    description,
    remote: true,
    maxSteps: WEBARENA_MAX_STEPS,
    make: (o: EnvOptions) =>
      new BrowserEnv({
        name: ref,
        sites,
        tasks: source,
        evaluate,
        maxSteps: o.maxSteps ?? WEBARENA_MAX_STEPS,
        ...(o.split !== undefined && { split: o.split }),
        ...(options.viewport !== undefined && { viewport: options.viewport }),
      }),
    tasks: () => source,
  };
}
