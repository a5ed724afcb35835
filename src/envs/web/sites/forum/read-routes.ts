import type { Context, Hono } from 'hono';
import { escapeHtml, type WebAppEnv } from '../web-app.ts';
import {
  facts,
  forumLink,
  PAGE_SIZE,
  type PageOptions,
  page,
  pagination,
  parsePage,
  parseSort,
  points,
  postList,
  postUrl,
  problemPage,
  sortNav,
  userLink,
} from './html.ts';
import {
  type CommentRow,
  findForum,
  findPost,
  findUser,
  listPosts,
  myVote,
  postComments,
} from './queries.ts';
import { formatDate } from './schema.ts';
import { currentUser, takeFlash } from './session.ts';

/** The pages that only read: front page, forums, a forum, a post, profiles, search. */
export function readRoutes(app: Hono<WebAppEnv>): void {
  app.get('/', (c) => {
    const sort = parseSort(c.req.query('sort'));
    const pageNumber = parsePage(c.req.query('page'));
    const { posts, total } = listPosts(c.var.db, '', [], sort, pageNumber);
    return c.html(
      page(
        options(c, 'Front page'),
        `<h1>Front page</h1>${sortNav('/', sort)}${postList(posts)}${pagination('/', pageNumber, total, { sort })}`,
      ),
    );
  });

  app.get('/forums', (c) => {
    const rows = c.var.db
      .prepare(
        `SELECT f.name, f.description,
          (SELECT COUNT(*) FROM subscriptions s WHERE s.forum_id = f.id) AS subscribers,
          (SELECT COUNT(*) FROM posts p WHERE p.forum_id = f.id AND p.deleted = 0) AS posts
         FROM forums f ORDER BY f.name`,
      )
      .all() as Array<{ name: string; description: string; subscribers: number; posts: number }>;
    const body = rows
      .map(
        (f) =>
          `<tr><td>${forumLink(f.name)}</td><td>${escapeHtml(f.description)}</td><td>${f.subscribers}</td><td>${f.posts}</td></tr>`,
      )
      .join('\n');
    return c.html(
      page(
        options(c, 'Forums'),
        `<h1>Forums</h1><p><a href="/create_forum">Create a forum</a></p>
<table><caption>All forums</caption>
<thead><tr><th scope="col">Forum</th><th scope="col">Description</th><th scope="col">Subscribers</th><th scope="col">Posts</th></tr></thead>
<tbody>${body}</tbody></table>`,
      ),
    );
  });

  app.get('/f/:forum', (c) => {
    const forum = findForum(c.var.db, c.req.param('forum'));
    if (!forum) return notFound(c, `There is no forum named f/${c.req.param('forum')}.`);
    const user = currentUser(c);
    const sort = parseSort(c.req.query('sort'));
    const pageNumber = parsePage(c.req.query('page'));
    const { posts, total } = listPosts(c.var.db, 'p.forum_id = ?', [forum.id], sort, pageNumber);
    const subscribed =
      user !== undefined &&
      c.var.db
        .prepare('SELECT 1 FROM subscriptions WHERE user_id = ? AND forum_id = ?')
        .get(user.id, forum.id) !== undefined;
    const base = `/f/${encodeURIComponent(forum.name)}`;
    return c.html(
      page(
        options(c, `f/${forum.name}`),
        `<h1 id="forum-title">${escapeHtml(forum.name)}</h1>
<p id="forum-description">${escapeHtml(forum.description)}</p>
${facts([
  ['Moderator', userLink(forum.moderator)],
  ['Subscribers', String(forum.subscribers), 'forum-subscribers'],
  ['Total posts', String(forum.posts)],
  ['Created', formatDate(forum.created)],
])}
<form method="post" action="${base}/subscribe" id="subscription" data-subscribed="${subscribed ? 'yes' : 'no'}">
<input type="hidden" name="action" value="${subscribed ? 'unsubscribe' : 'subscribe'}">
<button type="submit">${subscribed ? 'Unsubscribe' : 'Subscribe'}</button>
</form>
<p><a href="/submit?forum=${encodeURIComponent(forum.name)}">Submit a post</a></p>
${sortNav(base, sort)}${postList(posts, false)}${pagination(base, pageNumber, total, { sort })}`,
      ),
    );
  });

  // WebArena's reddit helpers name post pages with a trailing slash (`/f/forum/12/`).
  app.get('/f/:forum/:id{[0-9]+}/', (c) => c.redirect(c.req.path.slice(0, -1), 301));
  app.get('/f/:forum/:id{[0-9]+}', (c) => {
    const post = findPost(c.var.db, Number(c.req.param('id')));
    if (!post || post.forum !== c.req.param('forum')) {
      return notFound(c, 'This post does not exist. Search for it or browse its forum.');
    }
    const user = currentUser(c);
    const vote = myVote(c.var.db, 'post', user?.id, post.id);
    const own = user?.id === post.authorId && !post.deleted;
    const base = postUrl(post);
    const comments = postComments(c.var.db, post.id);
    const title = post.deleted ? '[deleted]' : post.title;
    const commentForm = post.deleted
      ? ''
      : `<form method="post" action="${base}/comment">
<label for="comment-body">Add a comment</label>
<textarea id="comment-body" name="body" rows="3" required></textarea>
<button type="submit">Post comment</button></form>`;
    return c.html(
      page(
        options(c, title),
        `<article id="post" data-post-id="${post.id}" data-my-vote="${voteName(vote)}">
<h1 id="post-title">${escapeHtml(title)}</h1>
${facts([
  ['Author', userLink(post.author)],
  ['Forum', forumLink(post.forum)],
  ['Submitted', formatDate(post.created)],
  ['Score', String(post.score), 'post-score'],
  ['Comments', String(post.comments)],
])}
<div id="post-body"><p>${post.deleted ? '[deleted]' : escapeHtml(post.body)}</p></div>
${post.deleted ? '' : voteForm(`${base}/vote`, vote)}
${own ? `<p><a href="${base}/edit">Edit post</a> <a href="${base}/delete">Delete post</a></p>` : ''}
</article>
<section aria-labelledby="discussion"><h2 id="discussion">Discussion</h2>
${commentForm}
${commentTree(comments, user?.id, (id) => myVote(c.var.db, 'comment', user?.id, id))}
</section>`,
      ),
    );
  });

  app.get('/user/:name', (c) => userPage(c, 'posts'));
  app.get('/user/:name/comments', (c) => userPage(c, 'comments'));

  app.get('/search', (c) => {
    const query = (c.req.query('q') ?? '').trim();
    const forumName = c.req.query('forum') ?? '';
    const pageNumber = parsePage(c.req.query('page'));
    const forums = c.var.db.prepare('SELECT name FROM forums ORDER BY name').all() as Array<{
      name: string;
    }>;
    const filter = `<form method="get" action="/search" aria-label="Search filters">
<input type="hidden" name="q" value="${escapeHtml(query)}">
<label for="search-forum">Forum</label>
<select id="search-forum" name="forum"><option value="">All forums</option>${forums
      .map(
        (f) =>
          `<option value="${escapeHtml(f.name)}"${f.name === forumName ? ' selected' : ''}>${escapeHtml(f.name)}</option>`,
      )
      .join('')}</select>
<button type="submit">Filter</button></form>`;
    if (!query) {
      return c.html(
        page(
          options(c, 'Search'),
          '<h1>Search</h1><p>Type words from a post title or body, or a user name, in the search box.</p>',
        ),
      );
    }
    const like = `%${query.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')}%`;
    const where = `(p.title LIKE ? ESCAPE '\\' OR p.body LIKE ? ESCAPE '\\')${forumName ? ' AND f.name = ?' : ''}`;
    const params = forumName ? [like, like, forumName] : [like, like];
    // Exact title matches first, so searching a title finds its post at the top.
    const exact = c.var.db
      .prepare(
        `SELECT p.id FROM posts p JOIN forums f ON f.id = p.forum_id
         WHERE p.deleted = 0 AND lower(p.title) = lower(?)${forumName ? ' AND f.name = ?' : ''}`,
      )
      .all(...(forumName ? [query, forumName] : [query])) as Array<{ id: number }>;
    const { posts, total } = listPosts(c.var.db, where, params, 'top', pageNumber);
    if (pageNumber === 1 && exact.length > 0) {
      const first = new Set(exact.map((e) => e.id));
      posts.sort((a, b) => Number(first.has(b.id)) - Number(first.has(a.id)));
    }
    const users =
      pageNumber === 1
        ? (c.var.db
            .prepare(
              `SELECT name FROM users WHERE name LIKE ? ESCAPE '\\' ORDER BY name LIMIT ${PAGE_SIZE}`,
            )
            .all(like) as Array<{ name: string }>)
        : [];
    const userSection =
      users.length > 0
        ? `<h2>Users</h2><ul aria-label="Users">${users.map((u) => `<li>${userLink(u.name)}</li>`).join('')}</ul>`
        : '';
    return c.html(
      page(
        { ...options(c, `Search: ${query}`), query },
        `<h1>Search results</h1>
${facts([['Posts found', String(total), 'search-total']])}
${filter}
${userSection}
<h2>Posts</h2>${postList(posts)}${pagination('/search', pageNumber, total, { q: query, forum: forumName })}`,
      ),
    );
  });

  app.get('/subscriptions', (c) => {
    const user = currentUser(c);
    if (!user) return c.redirect('/login?next=/subscriptions', 303);
    const rows = c.var.db
      .prepare(
        `SELECT f.name, f.description FROM subscriptions s JOIN forums f ON f.id = s.forum_id
         WHERE s.user_id = ? ORDER BY f.name`,
      )
      .all(user.id) as Array<{ name: string; description: string }>;
    return c.html(
      page(
        options(c, 'Subscriptions'),
        `<h1>Subscriptions</h1>
${facts([['Subscribed forums', String(rows.length), 'subscription-count']])}
<ul aria-label="Subscribed forums" id="subscribed-forums">${rows
          .map((f) => `<li>${forumLink(f.name)} — ${escapeHtml(f.description)}</li>`)
          .join('')}</ul>`,
      ),
    );
  });
}

function options(c: Context<WebAppEnv>, title: string): PageOptions {
  return { title, user: currentUser(c), flash: takeFlash(c) };
}

function notFound(c: Context<WebAppEnv>, message: string) {
  return c.html(problemPage(options(c, 'Not found'), 'Not found', message), 404);
}

export function voteName(direction: number): 'up' | 'down' | 'none' {
  return direction > 0 ? 'up' : direction < 0 ? 'down' : 'none';
}

/** Up/down buttons; `target` (e.g. `comment by x`) names them apart when a page has many. */
function voteForm(action: string, vote: number, target?: string): string {
  const label = (verb: string) => (target ? ` aria-label="${verb} ${escapeHtml(target)}"` : '');
  return `<form method="post" action="${action}" class="vote">
<button type="submit" name="direction" value="up" aria-pressed="${vote > 0}"${label('Upvote')}>Upvote</button>
<button type="submit" name="direction" value="down" aria-pressed="${vote < 0}"${label('Downvote')}>Downvote</button>
</form>`;
}

/** Comments nested under their parents, siblings oldest first. */
function commentTree(
  comments: readonly CommentRow[],
  userId: number | undefined,
  voteOf: (id: number) => number,
): string {
  if (comments.length === 0) return '<p>No comments yet.</p>';
  const children = new Map<number | null, CommentRow[]>();
  for (const comment of comments) {
    const siblings = children.get(comment.parentId) ?? [];
    siblings.push(comment);
    children.set(comment.parentId, siblings);
  }
  const render = (parent: number | null, className: string, label: string): string => {
    const list = children.get(parent);
    if (!list) return '';
    const items = list.map((comment) => {
      const vote = voteOf(comment.id);
      const author = escapeHtml(comment.author);
      const own = comment.authorId === userId && !comment.deleted;
      const actions = comment.deleted
        ? ''
        : `${voteForm(`/comment/${comment.id}/vote`, vote, `comment by ${comment.author}`)}
<a href="/comment/${comment.id}/reply" aria-label="Reply to ${author}">Reply</a>${
            own
              ? ` <a href="/comment/${comment.id}/edit">Edit comment</a> <a href="/comment/${comment.id}/delete">Delete comment</a>`
              : ''
          }`;
      return `<li><article class="comment" id="comment-${comment.id}" data-author="${author}" data-my-vote="${voteName(vote)}" aria-label="Comment by ${author}">
<p class="meta">${userLink(comment.author)} · <span>${points(comment.score)}</span> · ${formatDate(comment.created)}</p>
<div class="comment-body">${comment.deleted ? '[deleted]' : escapeHtml(comment.body)}</div>
${actions}
${render(comment.id, 'replies', 'Replies')}
</article></li>`;
    });
    return `<ol class="${className}" aria-label="${label}">${items.join('\n')}</ol>`;
  };
  return render(null, 'comments', 'Comment thread');
}

function userPage(c: Context<WebAppEnv>, tab: 'posts' | 'comments') {
  const profile = findUser(c.var.db, c.req.param('name') ?? '');
  if (!profile) return notFound(c, `There is no user named ${c.req.param('name')}.`);
  const pageNumber = parsePage(c.req.query('page'));
  const base = `/user/${encodeURIComponent(profile.name)}`;
  const tabs = `<nav aria-label="Profile sections"><a href="${base}"${tab === 'posts' ? ' aria-current="page"' : ''}>Posts</a> <a href="${base}/comments"${tab === 'comments' ? ' aria-current="page"' : ''}>Comments</a></nav>`;
  let content: string;
  if (tab === 'posts') {
    const sort = parseSort(c.req.query('sort'), 'new');
    const { posts, total } = listPosts(c.var.db, 'p.author_id = ?', [profile.id], sort, pageNumber);
    content = `${sortNav(base, sort, ['new', 'top'])}${postList(posts)}${pagination(base, pageNumber, total, { sort })}`;
  } else {
    const rows = c.var.db
      .prepare(
        `SELECT c.id, c.body, c.score, c.created, p.id AS postId, p.title, f.name AS forum
         FROM comments c JOIN posts p ON p.id = c.post_id JOIN forums f ON f.id = p.forum_id
         WHERE c.author_id = ? AND c.deleted = 0 ORDER BY c.created DESC, c.id DESC LIMIT ? OFFSET ?`,
      )
      .all(profile.id, PAGE_SIZE, (pageNumber - 1) * PAGE_SIZE) as Array<{
      id: number;
      body: string;
      score: number;
      created: number;
      postId: number;
      title: string;
      forum: string;
    }>;
    const items = rows
      .map(
        (
          r,
        ) => `<li class="user-comment" id="user-comment-${r.id}"><p class="meta">${points(r.score)} · ${formatDate(r.created)} · on <a href="${postUrl({ forum: r.forum, id: r.postId })}#comment-${r.id}">${escapeHtml(r.title)}</a></p>
<p>${escapeHtml(r.body)}</p></li>`,
      )
      .join('\n');
    content = `<ol class="posts" aria-label="Comments" id="comments">${items}</ol>${pagination(`${base}/comments`, pageNumber, profile.comments)}`;
  }
  return c.html(
    page(
      options(c, profile.name),
      `<h1 id="user-name">${escapeHtml(profile.name)}</h1>
${facts([
  ['Joined', formatDate(profile.joined)],
  ['Karma', String(profile.karma), 'user-karma'],
  ['Posts submitted', String(profile.posts)],
  ['Comments written', String(profile.comments)],
])}
<h2>Bio</h2><p id="bio">${escapeHtml(profile.bio || '(none)')}</p>
${tabs}${content}`,
    ),
  );
}
