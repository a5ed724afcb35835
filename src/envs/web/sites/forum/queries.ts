import type Database from 'better-sqlite3';
import { siteNow } from '../site-clock.ts';
import { PAGE_SIZE, type PostSummary, type Sort } from './html.ts';

/**
 * The forum's reads that several pages share. Orders are total (ties broken by newest id) so a
 * list reads the same on every visit and task generation can compute what a page shows.
 */

const POST_SUMMARY = `
SELECT p.id, p.title, f.name AS forum, u.name AS author, p.score, p.created,
  (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) AS comments
FROM posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.author_id`;

/** SQL `ORDER BY` of a sort; "hot" is score over age in hours, as Reddit's ranking decays. */
export function orderBy(sort: Sort, now: number): string {
  switch (sort) {
    case 'new':
      return 'p.created DESC, p.id DESC';
    case 'top':
      return 'p.score DESC, p.id DESC';
    case 'hot':
      return `(p.score * 1.0 / ((${now} - p.created) / 3600.0 + 2)) DESC, p.id DESC`;
  }
}

export interface PostListing {
  posts: PostSummary[];
  total: number;
}

/** One page of the live posts matching `where` (SQL over `p`, `f`, `u`) in `sort` order. */
export function listPosts(
  db: Database.Database,
  where: string,
  params: readonly unknown[],
  sort: Sort,
  pageNumber: number,
): PostListing {
  const filter = `p.deleted = 0${where ? ` AND (${where})` : ''}`;
  const total = (
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.author_id WHERE ${filter}`,
      )
      .get(...params) as { n: number }
  ).n;
  const posts = db
    .prepare(
      `${POST_SUMMARY} WHERE ${filter} ORDER BY ${orderBy(sort, siteNow(db))} LIMIT ? OFFSET ?`,
    )
    .all(...params, PAGE_SIZE, (pageNumber - 1) * PAGE_SIZE) as PostSummary[];
  return { posts, total };
}

export interface ForumRow {
  id: number;
  name: string;
  description: string;
  moderator: string;
  created: number;
  subscribers: number;
  posts: number;
}

export function findForum(db: Database.Database, name: string): ForumRow | undefined {
  return db
    .prepare(
      `SELECT f.id, f.name, f.description, u.name AS moderator, f.created,
        (SELECT COUNT(*) FROM subscriptions s WHERE s.forum_id = f.id) AS subscribers,
        (SELECT COUNT(*) FROM posts p WHERE p.forum_id = f.id AND p.deleted = 0) AS posts
       FROM forums f JOIN users u ON u.id = f.moderator_id WHERE f.name = ?`,
    )
    .get(name) as ForumRow | undefined;
}

export interface PostRow {
  id: number;
  forum: string;
  forumId: number;
  authorId: number;
  author: string;
  title: string;
  body: string;
  score: number;
  created: number;
  edited: number | null;
  deleted: number;
  comments: number;
}

export function findPost(db: Database.Database, id: number): PostRow | undefined {
  return db
    .prepare(
      `SELECT p.id, f.name AS forum, f.id AS forumId, p.author_id AS authorId, u.name AS author,
        p.title, p.body, p.score, p.created, p.edited, p.deleted,
        (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) AS comments
       FROM posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.author_id
       WHERE p.id = ?`,
    )
    .get(id) as PostRow | undefined;
}

export interface CommentRow {
  id: number;
  postId: number;
  parentId: number | null;
  authorId: number;
  author: string;
  body: string;
  score: number;
  created: number;
  deleted: number;
}

const COMMENT_COLUMNS = `c.id, c.post_id AS postId, c.parent_id AS parentId, c.author_id AS authorId,
  u.name AS author, c.body, c.score, c.created, c.deleted`;

/** A post's comments in thread order's raw material: oldest first. */
export function postComments(db: Database.Database, postId: number): CommentRow[] {
  return db
    .prepare(
      `SELECT ${COMMENT_COLUMNS} FROM comments c JOIN users u ON u.id = c.author_id
       WHERE c.post_id = ? ORDER BY c.created, c.id`,
    )
    .all(postId) as CommentRow[];
}

export function findComment(db: Database.Database, id: number): CommentRow | undefined {
  return db
    .prepare(
      `SELECT ${COMMENT_COLUMNS} FROM comments c JOIN users u ON u.id = c.author_id WHERE c.id = ?`,
    )
    .get(id) as CommentRow | undefined;
}

export interface UserRow {
  id: number;
  name: string;
  joined: number;
  bio: string;
  karma: number;
  posts: number;
  comments: number;
}

/** A user's profile facts; karma is the sum of the scores of their live posts and comments. */
export function findUser(db: Database.Database, name: string): UserRow | undefined {
  return db
    .prepare(
      `SELECT u.id, u.name, u.joined, u.bio,
        (SELECT COALESCE(SUM(score), 0) FROM posts WHERE author_id = u.id AND deleted = 0) +
        (SELECT COALESCE(SUM(score), 0) FROM comments WHERE author_id = u.id AND deleted = 0) AS karma,
        (SELECT COUNT(*) FROM posts WHERE author_id = u.id AND deleted = 0) AS posts,
        (SELECT COUNT(*) FROM comments WHERE author_id = u.id AND deleted = 0) AS comments
       FROM users u WHERE u.name = ?`,
    )
    .get(name) as UserRow | undefined;
}

/** The user's vote on a post or comment: 1, -1 or 0. */
export function myVote(
  db: Database.Database,
  kind: 'post' | 'comment',
  userId: number | undefined,
  id: number,
): number {
  if (userId === undefined) return 0;
  const row = db
    .prepare(`SELECT direction FROM ${kind}_votes WHERE user_id = ? AND ${kind}_id = ?`)
    .get(userId, id) as { direction: number } | undefined;
  return row?.direction ?? 0;
}
