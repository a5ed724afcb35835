import { ConfigError } from '../../../core/errors.ts';
import type { TaskSource } from '../../env.ts';
import { forumApp } from './forum/forum-app.ts';
import { forumTasks } from './forum/forum-tasks.ts';
import { storeApp } from './store/store-app.ts';
import { storeTasks } from './store/store-tasks.ts';
import type { WebAppDefinition } from './web-app.ts';

/** Our built-in web apps by name: env `web:NAME`, `dreamgym serve-site NAME`. */
export const WEB_APPS: Readonly<Record<string, WebAppDefinition>> = {
  forum: forumApp,
  store: storeApp,
};

const TASKS: Readonly<Record<string, (seed: number) => TaskSource>> = {
  forum: forumTasks,
  store: storeTasks,
};

/** The built-in web app `name`; an unknown name lists the known ones. */
export function webApp(name: string): WebAppDefinition {
  const app = WEB_APPS[name];
  if (!app) {
    throw new ConfigError(
      `unknown web app "${name}"; built-in web apps: ${Object.keys(WEB_APPS).join(', ')} (env names web:${Object.keys(WEB_APPS).join(', web:')}).`,
    );
  }
  return app;
}

/** The generated WebArena-format tasks of app `name` for content seed `seed`. */
export function webAppTasks(name: string, seed = 0): TaskSource {
  const make = TASKS[name];
  if (!make) webApp(name);
  return (make as (seed: number) => TaskSource)(seed);
}
