import type Database from 'better-sqlite3';
import type { Rng } from '../../../../core/rng.ts';
import type { EvalConfig, ProgramHtmlCheck } from '../../webarena/config.ts';
import { fill } from './generate.ts';
import { formatDate } from './schema.ts';
import {
  FORUM_TOPICS,
  type ForumTopic,
  NEW_FORUM_DESCRIPTIONS,
  NEW_FORUM_NAMES,
  NEW_TEXT_ENDINGS,
  NEW_TEXT_OPENERS,
  TITLE_PATTERNS,
} from './vocabulary.ts';

/**
 * The forum's task templates, after WebArena's reddit intents: information seeking (answered
 * with `stop [answer]`, checked by string_match), navigation (url_match) and changes (program_html
 * locators on the pages that show the change). Each template lists its phrasings and finds every
 * instantiation the generated data supports, with the reference computed from the data by SQL.
 * Candidates are restricted to unambiguous ones (a unique top post, a commenter who commented
 * once on the post) so every task has exactly one right answer.
 */

/** The placeholder of the forum's base URL in task configs (WebArena's reddit). */
export const BASE = '__REDDIT__';

export type TemplateKind = 'info' | 'navigation' | 'change';

/** One instantiation of a template: its slot values and how it is checked. */
export interface TemplateInstance {
  values: Record<string, string>;
  eval: EvalConfig;
}

/** What templates read: the generated database and the logged-in user's name. */
export interface ForumData {
  db: Database.Database;
  me: string;
}

export interface ForumTemplate {
  /** `intent_template_id`; stable, never reused. */
  id: number;
  /** What the expert and docs call it. */
  key: string;
  kind: TemplateKind;
  /** True when the task needs the logged-in user (WebArena's `require_login`). */
  requireLogin: boolean;
  /** Intent templates with `{slot}`s; a task uses one, chosen by its index. */
  phrasings: readonly string[];
  /** Every instantiation the data supports, in a fixed order; `rng` draws new texts. */
  instances(data: ForumData, rng: Rng): TemplateInstance[];
}

const exact = (answer: string | number): EvalConfig => ({
  eval_types: ['string_match'],
  reference_answers: { exact_match: String(answer) },
  reference_url: '',
  program_html: [],
  reference_answer_raw_annotation: String(answer),
});

const includes = (answer: string): EvalConfig => ({
  eval_types: ['string_match'],
  reference_answers: { must_include: [answer] },
  reference_url: '',
  program_html: [],
  reference_answer_raw_annotation: answer,
});

const url = (path: string, note = ''): EvalConfig => ({
  eval_types: ['url_match'],
  reference_answers: null,
  reference_url: `${BASE}${path}`,
  url_note: note || 'EXACT',
  program_html: [],
});

const html = (checks: ProgramHtmlCheck[]): EvalConfig => ({
  eval_types: ['program_html'],
  reference_answers: null,
  reference_url: '',
  program_html: checks,
});

const check = (
  page: string,
  locator: string,
  contents: ProgramHtmlCheck['required_contents'],
): ProgramHtmlCheck => ({
  url: page === 'last' || page.startsWith('func:') ? page : `${BASE}${page}`,
  locator,
  required_contents: contents,
});

/** A CSS attribute value as a JS string literal inside a locator. */
const css = (text: string) => JSON.stringify(text).slice(1, -1).replaceAll("'", "\\'");

interface PostFact {
  id: number;
  title: string;
  forum: string;
  author: string;
  score: number;
  created: number;
  comments: number;
}

const postPath = (post: { forum: string; id: number }) => `/f/${post.forum}/${post.id}`;

function posts(db: Database.Database, where = '1', ...params: unknown[]): PostFact[] {
  return db
    .prepare(
      `SELECT p.id, p.title, f.name AS forum, u.name AS author, p.score, p.created,
        (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) AS comments
       FROM posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.author_id
       WHERE p.deleted = 0 AND (${where}) ORDER BY p.id`,
    )
    .all(...params) as PostFact[];
}

/** The first of `rows` by `key`, only when strictly ahead of the second (one right answer). */
function uniqueBest<T>(rows: readonly T[], key: (row: T) => number): T | undefined {
  const sorted = [...rows].sort((a, b) => key(b) - key(a));
  const [first, second] = sorted;
  if (first === undefined) return undefined;
  return second === undefined || key(first) > key(second) ? first : undefined;
}

function forumNames(db: Database.Database): string[] {
  return (db.prepare('SELECT name FROM forums ORDER BY id').all() as Array<{ name: string }>).map(
    (f) => f.name,
  );
}

function userNames(db: Database.Database): string[] {
  return (db.prepare('SELECT name FROM users ORDER BY id').all() as Array<{ name: string }>).map(
    (u) => u.name,
  );
}

function userFact(db: Database.Database, name: string, sql: string): number {
  return (db.prepare(sql).get(name) as { n: number }).n;
}

const USER_POSTS =
  'SELECT COUNT(*) AS n FROM posts p JOIN users u ON u.id = p.author_id WHERE u.name = ? AND p.deleted = 0';
const USER_COMMENTS =
  'SELECT COUNT(*) AS n FROM comments c JOIN users u ON u.id = c.author_id WHERE u.name = ? AND c.deleted = 0';
const USER_KARMA = `SELECT
  (SELECT COALESCE(SUM(p.score), 0) FROM posts p WHERE p.author_id = u.id AND p.deleted = 0) +
  (SELECT COALESCE(SUM(c.score), 0) FROM comments c WHERE c.author_id = u.id AND c.deleted = 0) AS n
  FROM users u WHERE u.name = ?`;

interface CommentFact {
  id: number;
  postId: number;
  author: string;
  score: number;
  body: string;
}

function commentsOf(db: Database.Database, postId: number): CommentFact[] {
  return db
    .prepare(
      `SELECT c.id, c.post_id AS postId, u.name AS author, c.score, c.body
       FROM comments c JOIN users u ON u.id = c.author_id WHERE c.post_id = ? AND c.deleted = 0
       ORDER BY c.id`,
    )
    .all(postId) as CommentFact[];
}

/** (post, comment) pairs where the comment's author wrote no other comment on that post. */
function soleComments(data: ForumData, mine: boolean): Array<[PostFact, CommentFact]> {
  const pairs: Array<[PostFact, CommentFact]> = [];
  for (const post of posts(data.db, 'p.id IN (SELECT post_id FROM comments)')) {
    const comments = commentsOf(data.db, post.id);
    for (const comment of comments) {
      if ((comment.author === data.me) !== mine) continue;
      if (comments.filter((c) => c.author === comment.author).length === 1) {
        pairs.push([post, comment]);
      }
    }
  }
  return pairs;
}

function myVote(db: Database.Database, kind: 'post' | 'comment', id: number): number {
  const row = db
    .prepare(`SELECT direction FROM ${kind}_votes WHERE user_id = 1 AND ${kind}_id = ?`)
    .get(id) as { direction: number } | undefined;
  return row?.direction ?? 0;
}

function subscribed(db: Database.Database, forum: string): boolean {
  return (
    db
      .prepare(
        `SELECT 1 FROM subscriptions s JOIN forums f ON f.id = s.forum_id
         WHERE s.user_id = 1 AND f.name = ?`,
      )
      .get(forum) !== undefined
  );
}

function topicOf(forum: string): ForumTopic {
  return FORUM_TOPICS.find((t) => t.name === forum) ?? (FORUM_TOPICS[0] as ForumTopic);
}

/** A sentence no generated post or comment contains, for the agent to write. */
function newText(rng: Rng, forum: string): string {
  return `${rng.pick(NEW_TEXT_OPENERS)}, ${fill(rng, topicOf(forum), rng.pick(NEW_TEXT_ENDINGS))}`;
}

/** A post title not yet taken on the site. */
function newTitle(rng: Rng, data: ForumData, forum: string): string {
  const taken = data.db.prepare('SELECT 1 FROM posts WHERE title = ?');
  for (;;) {
    const title = `${fill(rng, topicOf(forum), rng.pick(TITLE_PATTERNS))}, ${rng.pick(['an update', 'a question', 'my notes', 'part two'])}`;
    if (!taken.get(title)) return title;
  }
}

const voteLocator = (selector: string) => `document.querySelector('${selector}').dataset.myVote`;

const myCommentsOn = (me: string) =>
  `[...document.querySelectorAll('.comment[data-author="${css(me)}"] > .comment-body')].map(e => e.outerText).join(' | ')`;

export const FORUM_TEMPLATES: readonly ForumTemplate[] = [
  {
    id: 1,
    key: 'post_author',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'Who submitted the post "{title}"?',
      'Tell me the user name of the author of the post titled "{title}".',
      'Which user wrote "{title}"?',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: exact(p.author) })),
  },
  {
    id: 2,
    key: 'post_score',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'What is the score of the post "{title}"?',
      'How many points does "{title}" have?',
      'Find the post "{title}" and report its current score.',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: exact(p.score) })),
  },
  {
    id: 3,
    key: 'post_comment_count',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many comments does the post "{title}" have?',
      'Count the comments on "{title}".',
      'What is the number of comments under the post titled "{title}"?',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: exact(p.comments) })),
  },
  {
    id: 4,
    key: 'post_forum',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'In which forum was "{title}" posted?',
      'Name the forum that the post "{title}" belongs to.',
      'Where on the site was "{title}" submitted? Give the forum name.',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: includes(p.forum) })),
  },
  {
    id: 5,
    key: 'post_date',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'On what date was "{title}" submitted? Answer as YYYY-MM-DD.',
      'When was the post "{title}" created (YYYY-MM-DD)?',
      'Give the submission date of "{title}" in YYYY-MM-DD form.',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: exact(formatDate(p.created)) })),
  },
  {
    id: 6,
    key: 'forum_top_post',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'What is the title of the highest-scoring post in f/{forum}?',
      'Which post in the {forum} forum has the most points? Give its title.',
      'Tell me the title of the top post of all time in f/{forum}.',
    ],
    instances: ({ db }) =>
      forumNames(db).flatMap((forum) => {
        const top = uniqueBest(posts(db, 'f.name = ?', forum), (p) => p.score);
        return top ? [{ values: { forum }, eval: includes(top.title) }] : [];
      }),
  },
  {
    id: 7,
    key: 'forum_newest_post',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'What is the title of the newest post in f/{forum}?',
      'Which post was submitted most recently to the {forum} forum? Give its title.',
      'Tell me the title of the latest post in f/{forum}.',
    ],
    instances: ({ db }) =>
      forumNames(db).flatMap((forum) => {
        const newest = uniqueBest(posts(db, 'f.name = ?', forum), (p) => p.created);
        return newest ? [{ values: { forum }, eval: includes(newest.title) }] : [];
      }),
  },
  {
    id: 8,
    key: 'forum_subscribers',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many subscribers does f/{forum} have?',
      'Tell me the subscriber count of the {forum} forum.',
      'How many users are subscribed to f/{forum}?',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: exact(
          (
            db
              .prepare(
                'SELECT COUNT(*) AS n FROM subscriptions s JOIN forums f ON f.id = s.forum_id WHERE f.name = ?',
              )
              .get(forum) as { n: number }
          ).n,
        ),
      })),
  },
  {
    id: 9,
    key: 'forum_post_count',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many posts are there in f/{forum}?',
      'Count the posts submitted to the {forum} forum.',
      'What is the total number of posts in f/{forum}?',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: exact(posts(db, 'f.name = ?', forum).length),
      })),
  },
  {
    id: 10,
    key: 'forum_moderator',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'Who moderates f/{forum}?',
      'Tell me the user name of the moderator of the {forum} forum.',
      'Which user is the moderator of f/{forum}?',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: exact(
          (
            db
              .prepare(
                'SELECT u.name FROM forums f JOIN users u ON u.id = f.moderator_id WHERE f.name = ?',
              )
              .get(forum) as { name: string }
          ).name,
        ),
      })),
  },
  {
    id: 11,
    key: 'forum_description',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'What is the description of f/{forum}?',
      'How does the {forum} forum describe itself? Quote its description.',
      'Tell me the one-line description of f/{forum}.',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: includes(
          (
            db.prepare('SELECT description FROM forums WHERE name = ?').get(forum) as {
              description: string;
            }
          ).description,
        ),
      })),
  },
  {
    id: 12,
    key: 'user_karma',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How much karma does {user} have?',
      'What is the karma of the user {user}?',
      'Look up {user} and tell me their karma.',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({
        values: { user },
        eval: exact(userFact(db, user, USER_KARMA)),
      })),
  },
  {
    id: 13,
    key: 'user_joined',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'When did {user} join the forum? Answer as YYYY-MM-DD.',
      'On what date did the user {user} sign up (YYYY-MM-DD)?',
      'Give the join date of {user} in YYYY-MM-DD form.',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({
        values: { user },
        eval: exact(
          formatDate(
            (db.prepare('SELECT joined FROM users WHERE name = ?').get(user) as { joined: number })
              .joined,
          ),
        ),
      })),
  },
  {
    id: 14,
    key: 'user_post_count',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many posts has {user} submitted?',
      'Count the posts written by the user {user}.',
      'What is the number of posts {user} has made?',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({
        values: { user },
        eval: exact(userFact(db, user, USER_POSTS)),
      })),
  },
  {
    id: 15,
    key: 'user_comment_count',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many comments has {user} written?',
      'Count the comments posted by {user}.',
      'What is the total number of comments by the user {user}?',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({
        values: { user },
        eval: exact(userFact(db, user, USER_COMMENTS)),
      })),
  },
  {
    id: 16,
    key: 'user_top_post',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'What is the title of the highest-scoring post by {user}?',
      'Which of the posts of {user} has the most points? Give its title.',
      'Tell me the title of the best-rated post {user} ever submitted.',
    ],
    instances: ({ db }) =>
      userNames(db).flatMap((user) => {
        const top = uniqueBest(posts(db, 'u.name = ?', user), (p) => p.score);
        return top ? [{ values: { user }, eval: includes(top.title) }] : [];
      }),
  },
  {
    id: 17,
    key: 'post_top_comment_author',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'Who wrote the highest-scoring comment on "{title}"?',
      'On the post "{title}", which user wrote the comment with the most points?',
      'Find the best-rated comment under "{title}" and tell me its author.',
    ],
    instances: ({ db }) =>
      posts(db, 'p.id IN (SELECT post_id FROM comments GROUP BY post_id HAVING COUNT(*) >= 2)')
        .map((p) => [p, uniqueBest(commentsOf(db, p.id), (c) => c.score)] as const)
        .filter((pair): pair is readonly [PostFact, CommentFact] => pair[1] !== undefined)
        .map(([p, c]) => ({ values: { title: p.title }, eval: exact(c.author) })),
  },
  {
    id: 18,
    key: 'post_comments_by_user',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many comments did {user} write on the post "{title}"?',
      'Count the comments by {user} under "{title}".',
      'On "{title}", how many of the comments are from {user}?',
    ],
    instances: ({ db }) =>
      posts(db, 'p.id IN (SELECT post_id FROM comments GROUP BY post_id HAVING COUNT(*) >= 3)').map(
        (p) => {
          const comments = commentsOf(db, p.id);
          const author = (comments[comments.length - 1] as CommentFact).author;
          return {
            values: { title: p.title, user: author },
            eval: exact(comments.filter((c) => c.author === author).length),
          };
        },
      ),
  },
  {
    id: 19,
    key: 'search_count',
    kind: 'info',
    requireLogin: false,
    phrasings: [
      'How many posts does a search for "{query}" find?',
      'Search the forum for "{query}" and tell me how many posts match.',
      'What is the number of search results for "{query}"?',
    ],
    instances: ({ db }) =>
      [...new Set(FORUM_TOPICS.flatMap((t) => t.nouns))].map((query) => ({
        values: { query },
        eval: exact(
          (
            db
              .prepare(
                'SELECT COUNT(*) AS n FROM posts WHERE deleted = 0 AND (title LIKE ? OR body LIKE ?)',
              )
              .get(`%${query}%`, `%${query}%`) as { n: number }
          ).n,
        ),
      })),
  },
  {
    id: 20,
    key: 'my_subscription_count',
    kind: 'info',
    requireLogin: true,
    phrasings: [
      'How many forums am I subscribed to?',
      'Count the forums in my subscriptions.',
      'What is the number of forums I follow?',
    ],
    instances: ({ db }) => [
      {
        values: {},
        eval: exact(
          (
            db.prepare('SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = 1').get() as {
              n: number;
            }
          ).n,
        ),
      },
    ],
  },
  {
    id: 21,
    key: 'open_forum',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Open the {forum} forum.',
      'Take me to f/{forum}.',
      'Go to the forum about {forum}.',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({ values: { forum }, eval: url(`/f/${forum}`) })),
  },
  {
    id: 22,
    key: 'open_post',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Open the post "{title}".',
      'Show me the discussion of "{title}".',
      'Take me to the post titled "{title}".',
    ],
    instances: ({ db }) =>
      posts(db).map((p) => ({ values: { title: p.title }, eval: url(postPath(p)) })),
  },
  {
    id: 23,
    key: 'open_user',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Show me the profile of {user}.',
      'Open the user page of {user}.',
      'Take me to the profile of the user {user}.',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({ values: { user }, eval: url(`/user/${user}`) })),
  },
  {
    id: 24,
    key: 'forum_sorted_top',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Show the top posts of f/{forum}.',
      'List the posts of the {forum} forum from most to fewest points.',
      'Sort f/{forum} by top.',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: url(`/f/${forum}?sort=top`, 'GOLD in PRED'),
      })),
  },
  {
    id: 25,
    key: 'forum_sorted_new',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Show the newest posts of f/{forum}.',
      'List the posts of the {forum} forum from newest to oldest.',
      'Sort f/{forum} by new.',
    ],
    instances: ({ db }) =>
      forumNames(db).map((forum) => ({
        values: { forum },
        eval: url(`/f/${forum}?sort=new`, 'GOLD in PRED'),
      })),
  },
  {
    id: 26,
    key: 'user_comments_page',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Show me the comments {user} has written.',
      'Open the comment history of {user}.',
      'Take me to the list of comments by {user}.',
    ],
    instances: ({ db }) =>
      userNames(db).map((user) => ({ values: { user }, eval: url(`/user/${user}/comments`) })),
  },
  {
    id: 27,
    key: 'search_page',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Search the forum for "{query}".',
      'Find posts about "{query}" with the search box.',
      'Show me the search results for "{query}".',
    ],
    instances: () =>
      [...new Set(FORUM_TOPICS.flatMap((t) => t.nouns))]
        .filter((noun) => /^[a-z]+$/.test(noun))
        .map((query) => ({ values: { query }, eval: url(`/search?q=${query}`, 'GOLD in PRED') })),
  },
  {
    id: 28,
    key: 'open_user_top_post',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Open the highest-scoring post by {user}.',
      'Take me to the post of {user} with the most points.',
      'Show me the best-rated post {user} has submitted.',
    ],
    instances: ({ db }) =>
      userNames(db).flatMap((user) => {
        const top = uniqueBest(posts(db, 'u.name = ?', user), (p) => p.score);
        return top ? [{ values: { user }, eval: url(postPath(top)) }] : [];
      }),
  },
  {
    id: 29,
    key: 'open_forum_newest_post',
    kind: 'navigation',
    requireLogin: false,
    phrasings: [
      'Open the newest post in f/{forum}.',
      'Take me to the most recent post of the {forum} forum.',
      'Show me the latest discussion in f/{forum}.',
    ],
    instances: ({ db }) =>
      forumNames(db).flatMap((forum) => {
        const newest = uniqueBest(posts(db, 'f.name = ?', forum), (p) => p.created);
        return newest ? [{ values: { forum }, eval: url(postPath(newest)) }] : [];
      }),
  },
  {
    id: 30,
    key: 'upvote_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Upvote the post "{title}".',
      'Give "{title}" an upvote.',
      'I like the post "{title}"; upvote it.',
    ],
    instances: ({ db }) =>
      posts(db)
        .filter((p) => myVote(db, 'post', p.id) !== 1)
        .map((p) => ({
          values: { title: p.title },
          eval: html([check(postPath(p), voteLocator('#post'), { exact_match: 'up' })]),
        })),
  },
  {
    id: 31,
    key: 'downvote_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Downvote the post "{title}".',
      'Give "{title}" a downvote.',
      'I dislike the post "{title}"; downvote it.',
    ],
    instances: ({ db }) =>
      posts(db)
        .filter((p) => myVote(db, 'post', p.id) !== -1)
        .map((p) => ({
          values: { title: p.title },
          eval: html([check(postPath(p), voteLocator('#post'), { exact_match: 'down' })]),
        })),
  },
  {
    id: 32,
    key: 'unvote_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Take back my upvote on "{title}".',
      'Remove my upvote from the post "{title}".',
      'I upvoted "{title}" by mistake; undo it.',
    ],
    instances: ({ db }) =>
      posts(db)
        .filter((p) => myVote(db, 'post', p.id) === 1)
        .map((p) => ({
          values: { title: p.title },
          eval: html([check(postPath(p), voteLocator('#post'), { exact_match: 'none' })]),
        })),
  },
  {
    id: 33,
    key: 'upvote_comment',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Upvote the comment by {user} on the post "{title}".',
      'On "{title}", give the comment of {user} an upvote.',
      'Find what {user} said under "{title}" and upvote that comment.',
    ],
    instances: (data) =>
      soleComments(data, false)
        .filter(([, c]) => myVote(data.db, 'comment', c.id) !== 1)
        .map(([p, c]) => ({
          values: { title: p.title, user: c.author },
          eval: html([check(postPath(p), voteLocator(`#comment-${c.id}`), { exact_match: 'up' })]),
        })),
  },
  {
    id: 34,
    key: 'downvote_comment',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Downvote the comment by {user} on the post "{title}".',
      'On "{title}", give the comment of {user} a downvote.',
      'Find what {user} said under "{title}" and downvote that comment.',
    ],
    instances: (data) =>
      soleComments(data, false)
        .filter(([, c]) => myVote(data.db, 'comment', c.id) !== -1)
        .map(([p, c]) => ({
          values: { title: p.title, user: c.author },
          eval: html([
            check(postPath(p), voteLocator(`#comment-${c.id}`), { exact_match: 'down' }),
          ]),
        })),
  },
  {
    id: 35,
    key: 'subscribe',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Subscribe to f/{forum}.',
      'I want to follow the {forum} forum; subscribe me.',
      'Add f/{forum} to my subscriptions.',
    ],
    instances: ({ db }) =>
      forumNames(db)
        .filter((forum) => !subscribed(db, forum))
        .map((forum) => ({ values: { forum }, eval: subscriptionCheck(forum, 'yes') })),
  },
  {
    id: 36,
    key: 'unsubscribe',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Unsubscribe from f/{forum}.',
      'I no longer want to follow the {forum} forum; unsubscribe me.',
      'Remove f/{forum} from my subscriptions.',
    ],
    instances: ({ db }) =>
      forumNames(db)
        .filter((forum) => subscribed(db, forum))
        .map((forum) => ({ values: { forum }, eval: subscriptionCheck(forum, 'no') })),
  },
  {
    id: 37,
    key: 'subscribe_post_forum',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Subscribe to the forum where "{title}" was posted.',
      'I liked "{title}"; subscribe me to its forum.',
      'Follow the forum that the post "{title}" is in.',
    ],
    instances: ({ db }) =>
      posts(db)
        .filter((p) => !subscribed(db, p.forum))
        .map((p) => ({ values: { title: p.title }, eval: subscriptionCheck(p.forum, 'yes') })),
  },
  {
    id: 38,
    key: 'create_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Create a post in f/{forum} titled "{new_title}" with the body "{new_body}".',
      'Submit a new post to the {forum} forum. Title: "{new_title}". Body: "{new_body}".',
      'Post "{new_title}" in f/{forum}, and write "{new_body}" as its text.',
    ],
    instances: (data, rng) =>
      forumNames(data.db).flatMap((forum) =>
        [0, 1].map(() => {
          const newTitleText = newTitle(rng, data, forum);
          const body = newText(rng, forum);
          return {
            values: { forum, new_title: newTitleText, new_body: body },
            eval: html([
              check(`/user/${data.me}`, "document.querySelector('#posts .post').outerText", {
                must_include: [newTitleText, `f/${forum}`],
              }),
              check(
                "func:reddit_get_post_url('__last_url__')",
                "document.querySelector('#post-body').outerText",
                { exact_match: body },
              ),
            ]),
          };
        }),
      ),
  },
  {
    id: 39,
    key: 'comment_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Comment "{text}" on the post "{title}".',
      'Reply to the post "{title}" with the comment "{text}".',
      'Leave a comment saying "{text}" under "{title}".',
    ],
    instances: (data, rng) =>
      posts(data.db).map((p) => {
        const text = newText(rng, p.forum);
        return {
          values: { title: p.title, text },
          eval: html([check(postPath(p), myCommentsOn(data.me), { must_include: [text] })]),
        };
      }),
  },
  {
    id: 40,
    key: 'reply_comment',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Reply to the comment by {user} on "{title}" with "{text}".',
      'On the post "{title}", answer the comment of {user}: "{text}".',
      'Write "{text}" as a reply to what {user} said under "{title}".',
    ],
    instances: (data, rng) =>
      soleComments(data, false).map(([p, c]) => {
        const text = newText(rng, p.forum);
        return {
          values: { title: p.title, user: c.author, text },
          eval: html([
            check(
              postPath(p),
              `[...document.querySelectorAll('#comment-${c.id} > ol.replies > li > .comment[data-author="${css(data.me)}"] > .comment-body')].map(e => e.outerText).join(' | ')`,
              { must_include: [text] },
            ),
          ]),
        };
      }),
  },
  {
    id: 41,
    key: 'edit_post_body',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Change the body of my post "{title}" to "{text}".',
      'Edit my post "{title}" so its text reads "{text}".',
      'Replace the text of my post "{title}" with "{text}".',
    ],
    instances: (data, rng) =>
      posts(data.db, 'u.name = ?', data.me).map((p) => {
        const text = newText(rng, p.forum);
        return {
          values: { title: p.title, text },
          eval: html([
            check(postPath(p), "document.querySelector('#post-body').outerText", {
              exact_match: text,
            }),
          ]),
        };
      }),
  },
  {
    id: 42,
    key: 'edit_post_title',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Rename my post "{title}" to "{new_title}".',
      'Change the title of my post "{title}" to "{new_title}".',
      'Edit my post "{title}" and give it the title "{new_title}".',
    ],
    instances: (data, rng) =>
      posts(data.db, 'u.name = ?', data.me).map((p) => {
        const title = newTitle(rng, data, p.forum);
        return {
          values: { title: p.title, new_title: title },
          eval: html([
            check(postPath(p), "document.querySelector('#post-title').outerText", {
              exact_match: title,
            }),
          ]),
        };
      }),
  },
  {
    id: 43,
    key: 'delete_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Delete my post "{title}".',
      'Remove the post "{title}" that I submitted.',
      'I regret posting "{title}"; delete it.',
    ],
    instances: (data) =>
      posts(data.db, 'u.name = ?', data.me).map((p) => ({
        values: { title: p.title },
        eval: html([
          check(postPath(p), "document.querySelector('#post-title').outerText", {
            exact_match: '[deleted]',
          }),
        ]),
      })),
  },
  {
    id: 44,
    key: 'edit_comment',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Change my comment on "{title}" to "{text}".',
      'Edit what I commented under "{title}" so it says "{text}".',
      'Reword my comment on the post "{title}" as "{text}".',
    ],
    instances: (data, rng) =>
      soleComments(data, true).map(([p, c]) => {
        const text = newText(rng, p.forum);
        return {
          values: { title: p.title, text },
          eval: html([
            check(
              postPath(p),
              `document.querySelector('#comment-${c.id} > .comment-body').outerText`,
              { exact_match: text },
            ),
          ]),
        };
      }),
  },
  {
    id: 45,
    key: 'delete_comment',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Delete my comment on "{title}".',
      'Remove the comment I wrote under "{title}".',
      'I regret my comment on the post "{title}"; delete it.',
    ],
    instances: (data) =>
      soleComments(data, true).map(([p, c]) => ({
        values: { title: p.title },
        eval: html([
          check(
            postPath(p),
            `document.querySelector('#comment-${c.id} > .comment-body').outerText`,
            { exact_match: '[deleted]' },
          ),
        ]),
      })),
  },
  {
    id: 46,
    key: 'create_forum',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Create a forum named {name} with the description "{description}".',
      'Start a new forum called {name}; describe it as "{description}".',
      'Make a forum {name} whose description is "{description}".',
    ],
    instances: (_data, rng) =>
      NEW_FORUM_NAMES.map((name) => {
        const description = rng.pick(NEW_FORUM_DESCRIPTIONS);
        return {
          values: { name, description },
          eval: html([
            check(`/f/${name}`, "document.querySelector('#forum-title').outerText", {
              exact_match: name,
            }),
            check(`/f/${name}`, "document.querySelector('#forum-description').outerText", {
              exact_match: description,
            }),
          ]),
        };
      }),
  },
  {
    id: 47,
    key: 'update_bio',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Set my profile bio to "{text}".',
      'Change my bio so it reads "{text}".',
      'Update the bio on my profile to "{text}".',
    ],
    instances: (data, rng) =>
      FORUM_TOPICS.map((topic) => {
        const text = newText(rng, topic.name);
        return {
          values: { text },
          eval: html([
            check(`/user/${data.me}`, "document.querySelector('#bio').outerText", {
              exact_match: text,
            }),
          ]),
        };
      }),
  },
  {
    id: 48,
    key: 'upvote_forum_top_post',
    kind: 'change',
    requireLogin: true,
    phrasings: [
      'Upvote the highest-scoring post in f/{forum}.',
      'Find the top post of the {forum} forum and upvote it.',
      'Give the post with the most points in f/{forum} an upvote.',
    ],
    instances: ({ db }) =>
      forumNames(db).flatMap((forum) => {
        const top = uniqueBest(posts(db, 'f.name = ?', forum), (p) => p.score);
        if (!top || myVote(db, 'post', top.id) === 1) return [];
        return [
          {
            values: { forum },
            eval: html([check(postPath(top), voteLocator('#post'), { exact_match: 'up' })]),
          },
        ];
      }),
  },
];

function subscriptionCheck(forum: string, state: 'yes' | 'no'): EvalConfig {
  return html([
    check(`/f/${forum}`, "document.querySelector('#subscription').dataset.subscribed", {
      exact_match: state,
    }),
  ]);
}
