import { ConfigError } from '../../../core/errors.ts';
import { forumApp } from './forum/forum-app.ts';
import { storeApp } from './store/store-app.ts';
import type { WebAppDefinition } from './web-app.ts';

/** Our built-in web apps by name: env `web:NAME`, `dreamgym serve-site NAME`. */
export const WEB_APPS: Readonly<Record<string, WebAppDefinition>> = {
  forum: forumApp,
  store: storeApp,
};

/** The built-in web app `name`; an unknown name lists the known ones. */
export function webApp(name: string): WebAppDefinition {
  const app = WEB_APPS[name];
  if (!app) {
    throw new ConfigError(
      `unknown web app "${name}"; built-in web apps: ${Object.keys(WEB_APPS).join(', ')}.`,
    );
  }
  return app;
}
