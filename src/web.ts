/**
 * Web envs in a real browser: `BrowserEnv` (WebArena's accessibility-tree observations and action
 * syntax, over Chromium through playwright-core), the built-in web apps (`web:forum`, `web:store`)
 * with their scripted experts, and WebArena task configs against sites at URLs you give.
 *
 * @packageDocumentation
 */

export { parseWebAction } from './envs/web/browser/action.ts';
export type { FlattenOptions } from './envs/web/browser/ax-tree.ts';
export {
  BrowserEnv,
  type BrowserEnvOptions,
  type EpisodeEndInfo,
  WEBARENA_MAX_STEPS,
} from './envs/web/browser/browser-env.ts';
export type { ViewportMode } from './envs/web/browser/browser-episode.ts';
export { isWebAppRef, WEB_APP_PREFIX, webAppEntry } from './envs/web/index.ts';
export { BuiltInSites, builtInSiteUrl } from './envs/web/sites/builtin-sites.ts';
export { type LoginHook, webarenaLoginHooks } from './envs/web/sites/logins.ts';
export type { SiteProvider, SiteSession } from './envs/web/sites/site-provider.ts';
export { UrlSites, type UrlSitesOptions } from './envs/web/sites/url-sites.ts';
export { INSTANCE_HEADER, type WebAppDefinition } from './envs/web/sites/web-app.ts';
export type { Evaluation, TaskEvaluator } from './envs/web/webarena/evaluator.ts';
export {
  isWebArenaRef,
  type LoadedConfig,
  loadWebArenaConfigs,
  WEBARENA_PREFIX,
  WebArenaConfigError,
  type WebArenaEntryOptions,
  webarenaEntry,
} from './envs/web/webarena/index.ts';
export { ForumExpert, type ForumExpertOptions } from './policy/experts/forum-expert.ts';
export { StoreExpert, type StoreExpertOptions } from './policy/experts/store-expert.ts';
