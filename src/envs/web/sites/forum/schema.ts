import { SITE_CLOCK_SCHEMA } from '../site-clock.ts';

/**
 * The forum's tables. Times are Unix seconds on the site's own clock (`meta.now`), so the same
 * seed renders the same dates and the same "hot" order on any day. A post's or comment's `score`
 * already counts every vote, the logged-in user's included (their own votes sit in the `*_votes`
 * tables so the pages can show which way they voted). Deleting is soft, as in Postmill: the row
 * stays with `deleted = 1` and shows as `[deleted]`.
 */
export const FORUM_SCHEMA = `
${SITE_CLOCK_SCHEMA}
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  joined INTEGER NOT NULL,
  bio TEXT NOT NULL DEFAULT '',
  password_hash TEXT NOT NULL,
  session_token TEXT NOT NULL UNIQUE,
  is_default INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE forums (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  moderator_id INTEGER NOT NULL REFERENCES users(id),
  created INTEGER NOT NULL
);
CREATE TABLE posts (
  id INTEGER PRIMARY KEY,
  forum_id INTEGER NOT NULL REFERENCES forums(id),
  author_id INTEGER NOT NULL REFERENCES users(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  score INTEGER NOT NULL,
  created INTEGER NOT NULL,
  edited INTEGER,
  deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX posts_forum ON posts(forum_id);
CREATE INDEX posts_author ON posts(author_id);
CREATE TABLE comments (
  id INTEGER PRIMARY KEY,
  post_id INTEGER NOT NULL REFERENCES posts(id),
  parent_id INTEGER REFERENCES comments(id),
  author_id INTEGER NOT NULL REFERENCES users(id),
  body TEXT NOT NULL,
  score INTEGER NOT NULL,
  created INTEGER NOT NULL,
  edited INTEGER,
  deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX comments_post ON comments(post_id);
CREATE INDEX comments_author ON comments(author_id);
CREATE TABLE post_votes (
  user_id INTEGER NOT NULL REFERENCES users(id),
  post_id INTEGER NOT NULL REFERENCES posts(id),
  direction INTEGER NOT NULL CHECK (direction IN (-1, 1)),
  PRIMARY KEY (user_id, post_id)
);
CREATE TABLE comment_votes (
  user_id INTEGER NOT NULL REFERENCES users(id),
  comment_id INTEGER NOT NULL REFERENCES comments(id),
  direction INTEGER NOT NULL CHECK (direction IN (-1, 1)),
  PRIMARY KEY (user_id, comment_id)
);
CREATE TABLE subscriptions (
  user_id INTEGER NOT NULL REFERENCES users(id),
  forum_id INTEGER NOT NULL REFERENCES forums(id),
  PRIMARY KEY (user_id, forum_id)
);
`;

/** `YYYY-MM-DD` of a site timestamp (UTC). */
export function formatDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}
