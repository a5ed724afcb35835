import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { Rng } from '../../../../core/rng.ts';
import { setSiteNow } from '../site-clock.ts';
import { FORUM_SCHEMA } from './schema.ts';
import {
  ADJECTIVES,
  BIO_PHRASES,
  BODY_SENTENCES,
  COMMENT_SENTENCES,
  FORUM_TOPICS,
  type ForumTopic,
  NAME_FIRST,
  NAME_SECOND,
  TITLE_PATTERNS,
} from './vocabulary.ts';

/** The generated content's "now": 2024-06-30 12:00 UTC. */
export const GENERATED_NOW = Date.UTC(2024, 5, 30, 12) / 1000;

const DAY = 86_400;
const USER_COUNT = 64;
/** Share of posts and comments written by the logged-in user, so "my post" tasks have material. */
const DEFAULT_USER_SHARE = 0.07;

/** Every user's password is `<name>-pass` (a demo site; the login form needs one). */
export function demoPassword(name: string): string {
  return `${name}-pass`;
}

export function hashPassword(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}

/**
 * Writes the forum's generated state for `seed` into an empty database: 64 users, 24 forums,
 * a few hundred posts and a few thousand threaded comments with scores, the logged-in user's
 * (user 1's) votes and everyone's subscriptions. Same seed, same rows.
 */
export function generateForum(db: Database.Database, seed: number): void {
  db.exec(FORUM_SCHEMA);
  const rng = new Rng(seed).fork('forum');
  setSiteNow(db, GENERATED_NOW);

  const userNames = rng.fork('users').sample(
    NAME_FIRST.flatMap((a) => NAME_SECOND.map((b) => `${a}_${b}`)),
    USER_COUNT,
  );
  const insertUser = db.prepare(
    `INSERT INTO users (id, name, joined, bio, password_hash, session_token, is_default)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const userRng = rng.fork('user-rows');
  const joined: number[] = [];
  for (const [i, name] of userNames.entries()) {
    const joinedAt = GENERATED_NOW - userRng.between(400, 1500) * DAY - userRng.int(DAY);
    joined.push(joinedAt);
    const token = Array.from({ length: 4 }, () =>
      userRng.uint32().toString(16).padStart(8, '0'),
    ).join('');
    const bio = userRng.chance(0.7) ? userRng.pick(BIO_PHRASES) : '';
    insertUser.run(
      i + 1,
      name,
      joinedAt,
      bio,
      hashPassword(demoPassword(name)),
      token,
      i === 0 ? 1 : 0,
    );
  }
  const userIds = userNames.map((_, i) => i + 1);
  const pickAuthor = (r: Rng) =>
    r.chance(DEFAULT_USER_SHARE) ? 1 : (r.pick(userIds.slice(1)) as number);

  const insertForum = db.prepare(
    `INSERT INTO forums (id, name, description, moderator_id, created) VALUES (?, ?, ?, ?, ?)`,
  );
  const forumRng = rng.fork('forums');
  for (const [i, topic] of FORUM_TOPICS.entries()) {
    insertForum.run(
      i + 1,
      topic.name,
      topic.description,
      forumRng.pick(userIds.slice(1)),
      GENERATED_NOW - forumRng.between(500, 1600) * DAY,
    );
  }

  const insertPost = db.prepare(
    `INSERT INTO posts (id, forum_id, author_id, title, body, score, created)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertComment = db.prepare(
    `INSERT INTO comments (id, post_id, parent_id, author_id, body, score, created)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const titles = new Set<string>();
  let postId = 0;
  let commentId = 0;
  for (const [f, topic] of FORUM_TOPICS.entries()) {
    const postRng = rng.fork('posts', topic.name);
    const count = postRng.between(10, 32);
    for (let p = 0; p < count; p++) {
      const title = uniqueTitle(postRng, topic, titles);
      const author = pickAuthor(postRng);
      const created = GENERATED_NOW - postRng.int(360 * DAY) - 3600;
      postId++;
      insertPost.run(
        postId,
        f + 1,
        author,
        title,
        fillSentences(postRng, topic, BODY_SENTENCES, postRng.between(2, 4)),
        skewedScore(postRng, 600),
        created,
      );
      const comments: Array<{ id: number; created: number }> = [];
      const commentCount = postRng.weighted([0, 1, 2, 3, 5, 7, 9, 12], [1, 2, 3, 3, 3, 2, 2, 1]);
      for (let c = 0; c < commentCount; c++) {
        const parent = comments.length > 0 && postRng.chance(0.45) ? postRng.pick(comments) : null;
        const after = parent?.created ?? created;
        const at = Math.min(after + postRng.between(60, 5 * DAY), GENERATED_NOW - 60);
        commentId++;
        insertComment.run(
          commentId,
          postId,
          parent?.id ?? null,
          pickAuthor(postRng),
          fillSentences(postRng, topic, COMMENT_SENTENCES, postRng.between(1, 2)),
          skewedScore(postRng, 90) - 2,
          at,
        );
        comments.push({ id: commentId, created: at });
      }
    }
  }

  const voteRng = rng.fork('votes');
  const insertPostVote = db.prepare(
    `INSERT INTO post_votes (user_id, post_id, direction) VALUES (1, ?, ?)`,
  );
  for (const id of voteRng.sample(
    Array.from({ length: postId }, (_, i) => i + 1),
    Math.round(postId * 0.12),
  )) {
    insertPostVote.run(id, voteRng.chance(0.8) ? 1 : -1);
  }
  const insertCommentVote = db.prepare(
    `INSERT INTO comment_votes (user_id, comment_id, direction) VALUES (1, ?, ?)`,
  );
  for (const id of voteRng.sample(
    Array.from({ length: commentId }, (_, i) => i + 1),
    Math.round(commentId * 0.05),
  )) {
    insertCommentVote.run(id, voteRng.chance(0.8) ? 1 : -1);
  }

  const insertSubscription = db.prepare(
    `INSERT INTO subscriptions (user_id, forum_id) VALUES (?, ?)`,
  );
  const subscriptionRng = rng.fork('subscriptions');
  const forumIds = FORUM_TOPICS.map((_, i) => i + 1);
  for (const user of userIds) {
    for (const forum of subscriptionRng.sample(forumIds, subscriptionRng.between(3, 9))) {
      insertSubscription.run(user, forum);
    }
  }
}

/** Mostly small, sometimes large, like real vote counts: max · u³ with a few negatives. */
function skewedScore(rng: Rng, max: number): number {
  const u = rng.float();
  return Math.round(max * u * u * u) - (rng.chance(0.1) ? rng.between(1, 6) : 0);
}

function uniqueTitle(rng: Rng, topic: ForumTopic, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    let title = fill(rng, topic, rng.pick(TITLE_PATTERNS));
    if (attempt > 20) title = `${title} (${attempt})`;
    if (!taken.has(title)) {
      taken.add(title);
      return title;
    }
  }
}

function fillSentences(
  rng: Rng,
  topic: ForumTopic,
  sentences: readonly string[],
  count: number,
): string {
  return rng
    .sample(sentences, count)
    .map((s) => fill(rng, topic, s))
    .join(' ');
}

/** Fills `{noun}`, `{other}`, `{adj}`, `{Adj}` and `{n}` in a pattern from the topic. */
export function fill(rng: Rng, topic: ForumTopic, pattern: string): string {
  const [noun, other] = rng.sample(topic.nouns, 2) as [string, string];
  const adjective = rng.pick(ADJECTIVES);
  return pattern
    .replaceAll('{noun}', noun)
    .replaceAll('{other}', other)
    .replaceAll('{adj}', adjective)
    .replaceAll('{Adj}', adjective[0]?.toUpperCase() + adjective.slice(1))
    .replaceAll('{n}', String(rng.between(2, 11)));
}
