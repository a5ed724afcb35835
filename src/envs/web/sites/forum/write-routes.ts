import type { Context, Hono } from 'hono';
import { nextTimestamp } from '../site-clock.ts';
import { escapeHtml, type WebAppEnv } from '../web-app.ts';
import { hashPassword } from './generate.ts';
import { formError, type PageOptions, page, postUrl, problemPage } from './html.ts';
import { type CommentRow, findComment, findForum, findPost, type PostRow } from './queries.ts';
import {
  currentUser,
  type ForumUser,
  logIn,
  logOut,
  redirectWithFlash,
  takeFlash,
} from './session.ts';

/** Longest title, body or comment the forms accept. */
const MAX_TITLE = 200;
const MAX_TEXT = 5000;
const FORUM_NAME = /^[a-z0-9_]{3,24}$/;

/**
 * The pages that change state: login, posting, commenting, editing and deleting (behind a
 * confirmation page), voting, subscribing, creating forums and the profile bio. Every change
 * redirects (303) to a page that shows it, with a flash message; bad input re-renders the form
 * with the problem named.
 */
export function writeRoutes(app: Hono<WebAppEnv>): void {
  app.get('/login', (c) => c.html(loginPage(c)));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const name = String(form.username ?? '').trim();
    const password = String(form.password ?? '');
    const row = c.var.db
      .prepare('SELECT session_token, password_hash FROM users WHERE name = ?')
      .get(name) as { session_token: string; password_hash: string } | undefined;
    if (!row || row.password_hash !== hashPassword(password)) {
      return c.html(loginPage(c, 'Wrong user name or password. Check both and try again.'), 401);
    }
    logIn(c, row.session_token);
    return redirectWithFlash(c, safeNext(String(form.next ?? '/')), `Welcome back, ${name}.`);
  });
  app.post('/logout', (c) => {
    logOut(c);
    return redirectWithFlash(c, '/', 'You are logged out.');
  });

  app.get('/submit', (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/submit');
    return c.html(submitPage(c, user, { forum: c.req.query('forum') ?? '' }));
  });
  app.post('/submit', async (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/submit');
    const form = await c.req.parseBody();
    const values = {
      forum: String(form.forum ?? ''),
      title: String(form.title ?? '').trim(),
      body: String(form.body ?? '').trim(),
    };
    const forum = findForum(c.var.db, values.forum);
    const problem = !forum
      ? 'Choose the forum to post in.'
      : !values.title
        ? 'A post needs a title.'
        : values.title.length > MAX_TITLE
          ? `Titles are at most ${MAX_TITLE} characters.`
          : values.body.length > MAX_TEXT
            ? `Bodies are at most ${MAX_TEXT} characters.`
            : undefined;
    if (problem || !forum) return c.html(submitPage(c, user, values, problem), 400);
    const result = c.var.db
      .prepare(
        'INSERT INTO posts (forum_id, author_id, title, body, score, created) VALUES (?, ?, ?, ?, 1, ?)',
      )
      .run(forum.id, user.id, values.title, values.body, nextTimestamp(c.var.db));
    c.var.db
      .prepare('INSERT INTO post_votes (user_id, post_id, direction) VALUES (?, ?, 1)')
      .run(user.id, result.lastInsertRowid);
    return redirectWithFlash(
      c,
      postUrl({ forum: forum.name, id: Number(result.lastInsertRowid) }),
      'Your post was created.',
    );
  });

  app.get('/create_forum', (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/create_forum');
    return c.html(createForumPage(c, { name: '', description: '' }));
  });
  app.post('/create_forum', async (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/create_forum');
    const form = await c.req.parseBody();
    const values = {
      name: String(form.name ?? '').trim(),
      description: String(form.description ?? '').trim(),
    };
    const problem = !FORUM_NAME.test(values.name)
      ? 'Forum names are 3 to 24 lowercase letters, digits or underscores.'
      : findForum(c.var.db, values.name)
        ? `f/${values.name} already exists; pick another name.`
        : !values.description
          ? 'Describe the forum in a sentence.'
          : undefined;
    if (problem) return c.html(createForumPage(c, values, problem), 400);
    const result = c.var.db
      .prepare('INSERT INTO forums (name, description, moderator_id, created) VALUES (?, ?, ?, ?)')
      .run(values.name, values.description, user.id, nextTimestamp(c.var.db));
    c.var.db
      .prepare('INSERT INTO subscriptions (user_id, forum_id) VALUES (?, ?)')
      .run(user.id, result.lastInsertRowid);
    return redirectWithFlash(
      c,
      `/f/${values.name}`,
      `Your forum f/${values.name} was created. You moderate it and are subscribed.`,
    );
  });

  app.post('/f/:forum/subscribe', async (c) => {
    const forum = findForum(c.var.db, c.req.param('forum'));
    if (!forum) return missing(c, `There is no forum named f/${c.req.param('forum')}.`);
    const user = currentUser(c);
    if (!user) return toLogin(c, `/f/${forum.name}`);
    const form = await c.req.parseBody();
    if (form.action === 'unsubscribe') {
      c.var.db
        .prepare('DELETE FROM subscriptions WHERE user_id = ? AND forum_id = ?')
        .run(user.id, forum.id);
      return redirectWithFlash(c, `/f/${forum.name}`, `You unsubscribed from f/${forum.name}.`);
    }
    c.var.db
      .prepare('INSERT OR IGNORE INTO subscriptions (user_id, forum_id) VALUES (?, ?)')
      .run(user.id, forum.id);
    return redirectWithFlash(c, `/f/${forum.name}`, `You subscribed to f/${forum.name}.`);
  });

  app.post('/f/:forum/:id{[0-9]+}/vote', async (c) => {
    const post = livePost(c);
    if (!post) return missing(c, 'This post does not exist or was deleted.');
    const user = currentUser(c);
    if (!user) return toLogin(c, postUrl(post));
    const direction = (await c.req.parseBody()).direction === 'down' ? -1 : 1;
    vote(c, 'post', user, post.id, direction);
    return redirectWithFlash(c, postUrl(post), 'Your vote was counted.');
  });

  app.post('/f/:forum/:id{[0-9]+}/comment', async (c) => {
    const post = livePost(c);
    if (!post) return missing(c, 'This post does not exist or was deleted.');
    const user = currentUser(c);
    if (!user) return toLogin(c, postUrl(post));
    const body = String((await c.req.parseBody()).body ?? '').trim();
    if (!body || body.length > MAX_TEXT) {
      return redirectWithFlash(
        c,
        postUrl(post),
        `A comment needs 1 to ${MAX_TEXT} characters; it was not posted.`,
      );
    }
    const id = addComment(c, post.id, null, user, body);
    return redirectWithFlash(c, `${postUrl(post)}#comment-${id}`, 'Your comment was posted.');
  });

  app.get('/f/:forum/:id{[0-9]+}/edit', (c) => {
    const owned = ownPost(c);
    if (!owned.ok) return owned.response;
    return c.html(editPostPage(c, owned.post));
  });
  app.post('/f/:forum/:id{[0-9]+}/edit', async (c) => {
    const owned = ownPost(c);
    if (!owned.ok) return owned.response;
    const form = await c.req.parseBody();
    const title = String(form.title ?? '').trim();
    const body = String(form.body ?? '').trim();
    if (title.length > MAX_TITLE || body.length > MAX_TEXT) {
      return c.html(
        editPostPage(
          c,
          owned.post,
          `Titles are at most ${MAX_TITLE}, bodies ${MAX_TEXT} characters.`,
        ),
        400,
      );
    }
    if (!title && !body) {
      return c.html(editPostPage(c, owned.post, 'Type a new title or a new body to save.'), 400);
    }
    c.var.db
      .prepare('UPDATE posts SET title = ?, body = ?, edited = ? WHERE id = ?')
      .run(
        title || owned.post.title,
        body || owned.post.body,
        nextTimestamp(c.var.db),
        owned.post.id,
      );
    return redirectWithFlash(c, postUrl(owned.post), 'Your post was updated.');
  });

  app.get('/f/:forum/:id{[0-9]+}/delete', (c) => {
    const owned = ownPost(c);
    if (!owned.ok) return owned.response;
    return c.html(
      confirmPage(
        c,
        'Delete this post?',
        `“${owned.post.title}” will show as [deleted]. Its comments stay.`,
        `${postUrl(owned.post)}/delete`,
        postUrl(owned.post),
      ),
    );
  });
  app.post('/f/:forum/:id{[0-9]+}/delete', (c) => {
    const owned = ownPost(c);
    if (!owned.ok) return owned.response;
    c.var.db.prepare('UPDATE posts SET deleted = 1 WHERE id = ?').run(owned.post.id);
    return redirectWithFlash(c, `/f/${owned.post.forum}`, 'Your post was deleted.');
  });

  app.post('/comment/:id{[0-9]+}/vote', async (c) => {
    const comment = liveComment(c);
    if (!comment) return missing(c, 'This comment does not exist or was deleted.');
    const user = currentUser(c);
    const back = commentUrl(c, comment);
    if (!user) return toLogin(c, back);
    const direction = (await c.req.parseBody()).direction === 'down' ? -1 : 1;
    vote(c, 'comment', user, comment.id, direction);
    return redirectWithFlash(c, back, 'Your vote was counted.');
  });

  app.get('/comment/:id{[0-9]+}/reply', (c) => {
    const comment = liveComment(c);
    if (!comment) return missing(c, 'This comment does not exist or was deleted.');
    if (!currentUser(c)) return toLogin(c, `/comment/${comment.id}/reply`);
    return c.html(replyPage(c, comment));
  });
  app.post('/comment/:id{[0-9]+}/reply', async (c) => {
    const comment = liveComment(c);
    if (!comment) return missing(c, 'This comment does not exist or was deleted.');
    const user = currentUser(c);
    if (!user) return toLogin(c, `/comment/${comment.id}/reply`);
    const body = String((await c.req.parseBody()).body ?? '').trim();
    if (!body || body.length > MAX_TEXT) {
      return c.html(replyPage(c, comment, `A reply needs 1 to ${MAX_TEXT} characters.`), 400);
    }
    const id = addComment(c, comment.postId, comment.id, user, body);
    const post = findPost(c.var.db, comment.postId) as PostRow;
    return redirectWithFlash(c, `${postUrl(post)}#comment-${id}`, 'Your reply was posted.');
  });

  app.get('/comment/:id{[0-9]+}/edit', (c) => {
    const owned = ownComment(c);
    if (!owned.ok) return owned.response;
    return c.html(editCommentPage(c, owned.comment));
  });
  app.post('/comment/:id{[0-9]+}/edit', async (c) => {
    const owned = ownComment(c);
    if (!owned.ok) return owned.response;
    const body = String((await c.req.parseBody()).body ?? '').trim();
    if (!body || body.length > MAX_TEXT) {
      return c.html(
        editCommentPage(c, owned.comment, `A comment needs 1 to ${MAX_TEXT} characters.`),
        400,
      );
    }
    c.var.db
      .prepare('UPDATE comments SET body = ?, edited = ? WHERE id = ?')
      .run(body, nextTimestamp(c.var.db), owned.comment.id);
    return redirectWithFlash(c, commentUrl(c, owned.comment), 'Your comment was updated.');
  });

  app.get('/comment/:id{[0-9]+}/delete', (c) => {
    const owned = ownComment(c);
    if (!owned.ok) return owned.response;
    return c.html(
      confirmPage(
        c,
        'Delete this comment?',
        `“${owned.comment.body}” will show as [deleted]. Replies to it stay.`,
        `/comment/${owned.comment.id}/delete`,
        commentUrl(c, owned.comment),
      ),
    );
  });
  app.post('/comment/:id{[0-9]+}/delete', (c) => {
    const owned = ownComment(c);
    if (!owned.ok) return owned.response;
    c.var.db.prepare('UPDATE comments SET deleted = 1 WHERE id = ?').run(owned.comment.id);
    return redirectWithFlash(c, commentUrl(c, owned.comment), 'Your comment was deleted.');
  });

  app.get('/settings', (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/settings');
    return c.html(settingsPage(c, user));
  });
  app.post('/settings', async (c) => {
    const user = currentUser(c);
    if (!user) return toLogin(c, '/settings');
    const bio = String((await c.req.parseBody()).bio ?? '').trim();
    if (!bio || bio.length > 300) {
      return c.html(settingsPage(c, user, 'A bio has 1 to 300 characters.'), 400);
    }
    c.var.db.prepare('UPDATE users SET bio = ? WHERE id = ?').run(bio, user.id);
    return redirectWithFlash(c, `/user/${user.name}`, 'Your bio was saved.');
  });
}

type Owned<T> = { ok: true } & T;
type Refused = { ok: false; response: Response | Promise<Response> };

function options(c: Context<WebAppEnv>, title: string): PageOptions {
  return { title, user: currentUser(c), flash: takeFlash(c) };
}

function missing(c: Context<WebAppEnv>, message: string) {
  return c.html(problemPage(options(c, 'Not found'), 'Not found', message), 404);
}

function toLogin(c: Context<WebAppEnv>, next: string) {
  return redirectWithFlash(
    c,
    `/login?next=${encodeURIComponent(next)}`,
    'Log in to do that; you will come back here.',
  );
}

/** Only same-site paths, so the login form cannot send anyone elsewhere. */
function safeNext(next: string): string {
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function livePost(c: Context<WebAppEnv>): PostRow | undefined {
  const post = findPost(c.var.db, Number(c.req.param('id')));
  return post && !post.deleted && post.forum === c.req.param('forum') ? post : undefined;
}

function liveComment(c: Context<WebAppEnv>): CommentRow | undefined {
  const comment = findComment(c.var.db, Number(c.req.param('id')));
  return comment && !comment.deleted ? comment : undefined;
}

function ownPost(c: Context<WebAppEnv>): Owned<{ post: PostRow }> | Refused {
  const post = livePost(c);
  if (!post) return { ok: false, response: missing(c, 'This post does not exist or was deleted.') };
  const user = currentUser(c);
  if (!user) return { ok: false, response: toLogin(c, postUrl(post)) };
  if (user.id !== post.authorId) {
    return { ok: false, response: forbidden(c, 'Only the author can edit or delete this post.') };
  }
  return { ok: true, post };
}

function ownComment(c: Context<WebAppEnv>): Owned<{ comment: CommentRow }> | Refused {
  const comment = liveComment(c);
  if (!comment) {
    return { ok: false, response: missing(c, 'This comment does not exist or was deleted.') };
  }
  const user = currentUser(c);
  if (!user) return { ok: false, response: toLogin(c, commentUrl(c, comment)) };
  if (user.id !== comment.authorId) {
    return {
      ok: false,
      response: forbidden(c, 'Only the author can edit or delete this comment.'),
    };
  }
  return { ok: true, comment };
}

function forbidden(c: Context<WebAppEnv>, message: string) {
  return c.html(problemPage(options(c, 'Not allowed'), 'Not allowed', message), 403);
}

function commentUrl(c: Context<WebAppEnv>, comment: CommentRow): string {
  const post = findPost(c.var.db, comment.postId) as PostRow;
  return `${postUrl(post)}#comment-${comment.id}`;
}

function addComment(
  c: Context<WebAppEnv>,
  postId: number,
  parentId: number | null,
  user: ForumUser,
  body: string,
): number {
  const result = c.var.db
    .prepare(
      'INSERT INTO comments (post_id, parent_id, author_id, body, score, created) VALUES (?, ?, ?, ?, 1, ?)',
    )
    .run(postId, parentId, user.id, body, nextTimestamp(c.var.db));
  c.var.db
    .prepare('INSERT INTO comment_votes (user_id, comment_id, direction) VALUES (?, ?, 1)')
    .run(user.id, result.lastInsertRowid);
  return Number(result.lastInsertRowid);
}

/** Casts a vote; voting the same way again takes it back, as on Reddit. */
function vote(
  c: Context<WebAppEnv>,
  kind: 'post' | 'comment',
  user: ForumUser,
  id: number,
  direction: 1 | -1,
): void {
  const db = c.var.db;
  const previous =
    (
      db
        .prepare(`SELECT direction FROM ${kind}_votes WHERE user_id = ? AND ${kind}_id = ?`)
        .get(user.id, id) as { direction: number } | undefined
    )?.direction ?? 0;
  const next = previous === direction ? 0 : direction;
  if (next === 0) {
    db.prepare(`DELETE FROM ${kind}_votes WHERE user_id = ? AND ${kind}_id = ?`).run(user.id, id);
  } else {
    db.prepare(
      `INSERT INTO ${kind}_votes (user_id, ${kind}_id, direction) VALUES (?, ?, ?)
       ON CONFLICT (user_id, ${kind}_id) DO UPDATE SET direction = excluded.direction`,
    ).run(user.id, id, next);
  }
  db.prepare(`UPDATE ${kind}s SET score = score + ? WHERE id = ?`).run(next - previous, id);
}

function loginPage(c: Context<WebAppEnv>, problem?: string): string {
  const next = safeNext(c.req.query('next') ?? '/');
  return page(
    options(c, 'Log in'),
    `<h1>Log in</h1>${formError(problem)}
<form method="post" action="/login">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="login-username">Username</label><input type="text" id="login-username" name="username" required autocomplete="username">
<label for="login-password">Password</label><input type="password" id="login-password" name="password" required autocomplete="current-password">
<p><button type="submit">Log in</button></p>
</form>`,
  );
}

function submitPage(
  c: Context<WebAppEnv>,
  user: ForumUser,
  values: { forum: string; title?: string; body?: string },
  problem?: string,
): string {
  const forums = c.var.db.prepare('SELECT name FROM forums ORDER BY name').all() as Array<{
    name: string;
  }>;
  const choices = forums
    .map(
      (f) =>
        `<option value="${escapeHtml(f.name)}"${f.name === values.forum ? ' selected' : ''}>${escapeHtml(f.name)}</option>`,
    )
    .join('');
  return page(
    options(c, 'Create a post'),
    `<h1>Create a post</h1>${formError(problem)}
<p>Posting as ${escapeHtml(user.name)}.</p>
<form method="post" action="/submit">
<label for="submit-forum">Forum</label>
<select id="submit-forum" name="forum" required><option value="">Choose a forum</option>${choices}</select>
<label for="submit-title">Title</label><input type="text" id="submit-title" name="title" required maxlength="${MAX_TITLE}" value="${escapeHtml(values.title ?? '')}">
<label for="submit-body">Body</label><textarea id="submit-body" name="body" rows="6">${escapeHtml(values.body ?? '')}</textarea>
<p><button type="submit">Create post</button></p>
</form>`,
  );
}

function createForumPage(
  c: Context<WebAppEnv>,
  values: { name: string; description: string },
  problem?: string,
): string {
  return page(
    options(c, 'Create a forum'),
    `<h1>Create a forum</h1>${formError(problem)}
<form method="post" action="/create_forum">
<label for="forum-name">Name</label><input type="text" id="forum-name" name="name" required value="${escapeHtml(values.name)}" aria-describedby="forum-name-help">
<p id="forum-name-help">3 to 24 lowercase letters, digits or underscores.</p>
<label for="forum-description-input">Description</label><textarea id="forum-description-input" name="description" rows="2" required>${escapeHtml(values.description)}</textarea>
<p><button type="submit">Create forum</button></p>
</form>`,
  );
}

/**
 * Edit forms start empty (a blank field keeps the current text, shown above the form), so an
 * agent's typed text is the whole new value whether its typing replaces or appends.
 */
function editPostPage(c: Context<WebAppEnv>, post: PostRow, problem?: string): string {
  return page(
    options(c, 'Edit post'),
    `<h1>Edit post</h1>${formError(problem)}
<p>Current title: ${escapeHtml(post.title)}</p>
<p>Current body: ${escapeHtml(post.body)}</p>
<form method="post" action="${postUrl(post)}/edit">
<label for="edit-title">New title</label><input type="text" id="edit-title" name="title" maxlength="${MAX_TITLE}" aria-describedby="edit-help">
<label for="edit-body">New body</label><textarea id="edit-body" name="body" rows="6" aria-describedby="edit-help"></textarea>
<p id="edit-help">Leave a field blank to keep it as it is.</p>
<p><button type="submit">Save changes</button> <a href="${postUrl(post)}">Cancel</a></p>
</form>`,
  );
}

function editCommentPage(c: Context<WebAppEnv>, comment: CommentRow, problem?: string): string {
  return page(
    options(c, 'Edit comment'),
    `<h1>Edit comment</h1>${formError(problem)}
<p>Current text: ${escapeHtml(comment.body)}</p>
<form method="post" action="/comment/${comment.id}/edit">
<label for="edit-comment">New text</label><textarea id="edit-comment" name="body" rows="4" required></textarea>
<p><button type="submit">Save comment</button> <a href="${commentUrl(c, comment)}">Cancel</a></p>
</form>`,
  );
}

function replyPage(c: Context<WebAppEnv>, comment: CommentRow, problem?: string): string {
  return page(
    options(c, `Reply to ${comment.author}`),
    `<h1>Reply to ${escapeHtml(comment.author)}</h1>${formError(problem)}
<blockquote>${escapeHtml(comment.body)}</blockquote>
<form method="post" action="/comment/${comment.id}/reply">
<label for="reply-body">Reply</label><textarea id="reply-body" name="body" rows="4" required></textarea>
<p><button type="submit">Post reply</button> <a href="${commentUrl(c, comment)}">Cancel</a></p>
</form>`,
  );
}

function settingsPage(c: Context<WebAppEnv>, user: ForumUser, problem?: string): string {
  const { bio } = c.var.db.prepare('SELECT bio FROM users WHERE id = ?').get(user.id) as {
    bio: string;
  };
  return page(
    options(c, 'Settings'),
    `<h1>Settings</h1>${formError(problem)}
<p>Current bio: ${escapeHtml(bio || '(none)')}</p>
<form method="post" action="/settings">
<label for="settings-bio">New bio</label><textarea id="settings-bio" name="bio" rows="2" required></textarea>
<p><button type="submit">Save bio</button></p>
</form>`,
  );
}

function confirmPage(
  c: Context<WebAppEnv>,
  heading: string,
  message: string,
  action: string,
  cancel: string,
): string {
  return page(
    options(c, heading),
    `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p>
<form method="post" action="${action}"><button type="submit">Yes, delete it</button> <a href="${cancel}">Cancel</a></form>`,
  );
}
