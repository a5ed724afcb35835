import type { WebAppDefinition } from '../web-app.ts';
import { generateForum } from './generate.ts';
import { readRoutes } from './read-routes.ts';
import { defaultLoginCookies } from './session.ts';
import { writeRoutes } from './write-routes.ts';

/**
 * The built-in forum (after Reddit/Postmill), standing in for WebArena's `reddit` site: forums,
 * posts with threaded comments, votes, profiles with karma, search, hot/new/top sorting, posting
 * and editing, subscriptions and a logged-in user (user 1, logged in by
 * {@link defaultLoginCookies}; every user's password is `<name>-pass`).
 */
export const forumApp: WebAppDefinition = {
  name: 'forum',
  site: 'reddit',
  description: 'a Reddit-like forum: posts, threaded comments, votes, profiles, search',
  build: generateForum,
  routes(app) {
    readRoutes(app);
    writeRoutes(app);
  },
  loginCookies: defaultLoginCookies,
};
