import type { EnvEntry, EnvOptions } from '../env.ts';
import { BrowserEnv, WEBARENA_MAX_STEPS } from './browser/browser-env.ts';
import type { ViewportMode } from './browser/browser-episode.ts';
import { WEB_APPS, webApp, webAppTasks } from './sites/apps.ts';
import { BuiltInSites } from './sites/builtin-sites.ts';
import { makeEvaluator } from './webarena/evaluate.ts';

/** Prefix of our built-in web apps' env names: `web:forum`, `web:store`. */
export const WEB_APP_PREFIX = 'web:';

/** True for `web:NAME` env names. */
export function isWebAppRef(name: string): boolean {
  return name.startsWith(WEB_APP_PREFIX);
}

/**
 * The registry entry of `web:NAME`: one of our built-in web apps in a real Chromium
 * ({@link BrowserEnv}), its generated WebArena-format tasks, WebArena's evaluators and step limit.
 * Each episode runs against its own copy of the site's state. `viewport` is what observations
 * show (default `whole`, the whole document; `visible` as WebArena's experiments: see
 * the browser env's `viewport` option).
 */
export function webAppEntry(name: string, options: { viewport?: ViewportMode } = {}): EnvEntry {
  const app = webApp(name.slice(WEB_APP_PREFIX.length));
  const envName = `${WEB_APP_PREFIX}${app.name}`;
  const tasks = webAppTasks(app.name);
  const evaluate = makeEvaluator();
  return {
    description: `${app.description}; in a real Chromium, WebArena's tree text and actions`,
    maxSteps: WEBARENA_MAX_STEPS,
    make: (o: EnvOptions) =>
      new BrowserEnv({
        name: envName,
        sites: new BuiltInSites([app]),
        tasks,
        evaluate,
        maxSteps: o.maxSteps ?? WEBARENA_MAX_STEPS,
        ...(o.split !== undefined && { split: o.split }),
        ...(options.viewport !== undefined && { viewport: options.viewport }),
      }),
    tasks: () => tasks,
  };
}

/** Registry entries of every built-in web app, by env name. */
export function webAppEntries(): Record<string, EnvEntry> {
  return Object.fromEntries(
    Object.keys(WEB_APPS).map((name) => [`${WEB_APP_PREFIX}${name}`, webAppEntry(`web:${name}`)]),
  );
}
