import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { INSTANCE_HEADER, templateDatabase, webAppRouter } from '../web-app.ts';
import { forumApp } from './forum-app.ts';
import { demoPassword } from './generate.ts';
import { SESSION_COOKIE } from './session.ts';

/** The site in-process over a fresh copy of seed 0's database per test (no port, no browser). */
function site() {
  const instances = new Map<string, Database.Database>([
    ['default', new Database(templateDatabase(forumApp, 0))],
  ]);
  const app = webAppRouter(forumApp, (id) => instances.get(id));
  const db = instances.get('default') as Database.Database;
  const me = db.prepare('SELECT name, session_token FROM users WHERE is_default = 1').get() as {
    name: string;
    session_token: string;
  };
  const cookie = `${SESSION_COOKIE}=${me.session_token}`;
  /** A request as the logged-in user unless `headers` says otherwise. */
  const request = (path: string, init: RequestInit = {}) =>
    app.request(path, { ...init, headers: { cookie, ...(init.headers ?? {}) } });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await request(path, { headers });
    return { status: response.status, html: await response.text() };
  };
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    request(path, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
  return { app, db, me: me.name, cookie, instances, get, post };
}

type Site = ReturnType<typeof site>;

function anyPost(db: Database.Database, where = '1') {
  return db
    .prepare(
      `SELECT p.id, p.title, p.score, f.name AS forum, p.author_id AS author FROM posts p
       JOIN forums f ON f.id = p.forum_id WHERE ${where} ORDER BY p.id LIMIT 1`,
    )
    .get() as { id: number; title: string; score: number; forum: string; author: number };
}

describe('forum generation', () => {
  const dump = (seed: number) => {
    const db = new Database(':memory:');
    forumApp.build(db, seed);
    const rows = ['users', 'forums', 'posts', 'comments', 'post_votes', 'subscriptions'].map(
      (table) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all(),
    );
    db.close();
    return JSON.stringify(rows);
  };

  it('builds the same database from the same seed and another from another seed', () => {
    expect(dump(3)).toBe(dump(3));
    expect(dump(3)).not.toBe(dump(4));
  });

  it('generates a few hundred posts and a few thousand comments, one default user', () => {
    const db = new Database(templateDatabase(forumApp, 0));
    const count = (table: string) =>
      (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count('forums')).toBe(24);
    expect(count('posts')).toBeGreaterThan(300);
    expect(count('comments')).toBeGreaterThan(1000);
    expect(count('users WHERE is_default = 1')).toBe(1);
    expect(count('posts WHERE author_id = 1')).toBeGreaterThan(10);
    expect(count("posts WHERE title LIKE '%''%' OR title LIKE '%\"%'")).toBe(0);
    db.close();
  });
});

describe('forum pages', () => {
  let s: Site;
  beforeEach(() => {
    s = site();
  });

  it('renders the main pages with landmarks, headings and labelled controls', async () => {
    const post = anyPost(s.db);
    for (const path of [
      '/',
      '/forums',
      `/f/${post.forum}`,
      `/f/${post.forum}/${post.id}`,
      `/user/${s.me}`,
      `/user/${s.me}/comments`,
      '/search?q=the',
      '/subscriptions',
      '/submit',
      '/settings',
      '/create_forum',
    ]) {
      const { status, html } = await s.get(path);
      expect(status, path).toBe(200);
      expect(html, path).toContain('<main>');
      expect(html, path).toContain('aria-label="Search"');
      expect(html, path).toMatch(/<h1[^>]*>/);
      expect(html, path).toContain(`Signed in as <a href="/user/${s.me}">`);
    }
  });

  it('shows a post with its facts, body, votes and threaded comments', async () => {
    const post = s.db
      .prepare(
        `SELECT p.id, f.name AS forum FROM posts p JOIN forums f ON f.id = p.forum_id
         WHERE p.id IN (SELECT post_id FROM comments WHERE parent_id IS NOT NULL) LIMIT 1`,
      )
      .get() as { id: number; forum: string };
    const { html } = await s.get(`/f/${post.forum}/${post.id}`);
    expect(html).toMatch(/<li id="post-score">Score: -?\d+<\/li>/);
    expect(html).toContain('aria-label="Comment thread"');
    expect(html).toContain('class="replies"');
    expect(html).toMatch(/aria-label="Reply to [a-z]+_[a-z]+"/);
    expect(html).toContain('data-my-vote=');
  });

  it('answers unknown forums, posts and users with 404 pages that say what to do', async () => {
    expect((await s.get('/f/nosuchforum')).status).toBe(404);
    expect((await s.get('/f/cooking/999999')).status).toBe(404);
    const missing = await s.get('/user/nobody_here');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('There is no user named nobody_here.');
  });

  it('sorts and paginates listings', async () => {
    const top = await s.get('/?sort=top');
    const best = s.db.prepare('SELECT title FROM posts ORDER BY score DESC, id DESC').get() as {
      title: string;
    };
    expect(top.html.indexOf(best.title)).toBeGreaterThan(0);
    expect(top.html).toContain('Page 1 of');
    expect(top.html).toContain('Next page');
    const second = await s.get('/?sort=top&page=2');
    expect(second.html).not.toContain(`>${best.title}<`);
    expect(second.html).toContain('Previous page');
  });

  it('finds a post by its exact title first, and users by name', async () => {
    const post = anyPost(s.db, 'p.id = 50');
    const { html } = await s.get(`/search?q=${encodeURIComponent(post.title)}`);
    const firstTitle = /<h2 class="post-title"><a [^>]*>([^<]+)<\/a>/.exec(html)?.[1];
    expect(firstTitle).toBe(post.title);
    const users = await s.get(`/search?q=${s.me.slice(0, 5)}`);
    expect(users.html).toContain(`<a href="/user/${s.me}">${s.me}</a>`);
  });
});

describe('forum forms', () => {
  let s: Site;
  beforeEach(() => {
    s = site();
  });

  it('logs in with the right password only, and the cookie is the default login', async () => {
    const wrong = await s.app.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ username: s.me, password: 'nope' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Wrong user name or password');
    const right = await s.app.request('/login', {
      method: 'POST',
      body: new URLSearchParams({ username: s.me, password: demoPassword(s.me), next: '/forums' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/forums');
    const login = forumApp.loginCookies?.(s.db) ?? {};
    expect(right.headers.get('set-cookie')).toContain(`${SESSION_COOKIE}=${login[SESSION_COOKIE]}`);
  });

  it('sends logged-out writers to the login page', async () => {
    const response = await s.app.request('/submit');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2Fsubmit');
  });

  it('creates a post that shows on its page, the forum and the profile, with a flash once', async () => {
    const response = await s.post('/submit', {
      forum: 'chess',
      title: 'A brand new opening idea',
      body: 'Play the knight first.',
    });
    expect(response.status).toBe(303);
    const location = response.headers.get('location') as string;
    expect(location).toMatch(/^\/f\/chess\/\d+$/);
    const flash = response.headers.get('set-cookie') as string;
    const page = await s.get(location, { cookie: `${s.cookie}; ${flash.split(';')[0]}` });
    expect(page.html).toContain('<h1 id="post-title">A brand new opening idea</h1>');
    expect(page.html).toContain('Your post was created.');
    expect((await s.get(location)).html).not.toContain('Your post was created.');
    expect((await s.get('/f/chess?sort=new')).html).toContain('A brand new opening idea');
    const profile = (await s.get(`/user/${s.me}`)).html;
    const firstEntry = profile.slice(profile.indexOf('<li class="post"'));
    expect(firstEntry.slice(0, firstEntry.indexOf('</li>'))).toContain('A brand new opening idea');
  });

  it('re-renders the post form with the problem named when the title is missing', async () => {
    const response = await s.post('/submit', { forum: 'chess', title: '', body: 'x' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('A post needs a title.');
  });

  it('counts a vote once, switches it, and takes it back when pressed again', async () => {
    const post = anyPost(s.db, 'p.id NOT IN (SELECT post_id FROM post_votes)');
    const path = `/f/${post.forum}/${post.id}`;
    const score = () =>
      (s.db.prepare('SELECT score FROM posts WHERE id = ?').get(post.id) as { score: number })
        .score;
    await s.post(`${path}/vote`, { direction: 'up' });
    expect(score()).toBe(post.score + 1);
    expect((await s.get(path)).html).toContain('data-my-vote="up"');
    await s.post(`${path}/vote`, { direction: 'down' });
    expect(score()).toBe(post.score - 1);
    await s.post(`${path}/vote`, { direction: 'down' });
    expect(score()).toBe(post.score);
    expect((await s.get(path)).html).toContain('data-my-vote="none"');
  });

  it('posts comments and replies into the thread', async () => {
    const post = anyPost(s.db);
    const path = `/f/${post.forum}/${post.id}`;
    const created = await s.post(`${path}/comment`, { body: 'First thoughts here' });
    const id = /#comment-(\d+)$/.exec(created.headers.get('location') as string)?.[1];
    expect(id).toBeDefined();
    await s.post(`/comment/${id}/reply`, { body: 'Answering myself' });
    const html = (await s.get(path)).html;
    const comment = html.slice(html.indexOf(`id="comment-${id}"`));
    expect(comment).toContain('First thoughts here');
    expect(comment.slice(comment.indexOf('class="replies"'))).toContain('Answering myself');
  });

  it('edits a post keeping blank fields, and deletes it behind a confirmation page', async () => {
    const post = anyPost(s.db, 'p.author_id = 1');
    const path = `/f/${post.forum}/${post.id}`;
    expect((await s.get(path)).html).toContain('Edit post');
    await s.post(`${path}/edit`, { title: '', body: 'Rewritten body' });
    let html = (await s.get(path)).html;
    expect(html).toContain(`<h1 id="post-title">${post.title}</h1>`);
    expect(html).toContain('<div id="post-body"><p>Rewritten body</p></div>');
    const confirm = await s.get(`${path}/delete`);
    expect(confirm.html).toContain('Yes, delete it');
    expect((await s.get(path)).html).toContain(post.title);
    await s.post(`${path}/delete`, {});
    html = (await s.get(path)).html;
    expect(html).toContain('<h1 id="post-title">[deleted]</h1>');
    expect((await s.get(`/f/${post.forum}`)).html).not.toContain(`>${post.title}<`);
  });

  it('refuses to let anyone but the author edit or delete', async () => {
    const post = anyPost(s.db, 'p.author_id <> 1');
    const path = `/f/${post.forum}/${post.id}`;
    expect((await s.get(`${path}/edit`)).status).toBe(403);
    expect((await s.post(`${path}/delete`, {})).status).toBe(403);
    const comment = s.db.prepare('SELECT id FROM comments WHERE author_id <> 1 LIMIT 1').get() as {
      id: number;
    };
    expect((await s.post(`/comment/${comment.id}/edit`, { body: 'x' })).status).toBe(403);
  });

  it('edits and deletes my comment', async () => {
    const comment = s.db
      .prepare(
        `SELECT c.id, p.id AS post, f.name AS forum FROM comments c JOIN posts p ON p.id = c.post_id
         JOIN forums f ON f.id = p.forum_id WHERE c.author_id = 1 LIMIT 1`,
      )
      .get() as { id: number; post: number; forum: string };
    await s.post(`/comment/${comment.id}/edit`, { body: 'Changed my mind' });
    const page = `/f/${comment.forum}/${comment.post}`;
    expect((await s.get(page)).html).toContain('Changed my mind');
    await s.post(`/comment/${comment.id}/delete`, {});
    const html = (await s.get(page)).html;
    const own = html.slice(html.indexOf(`id="comment-${comment.id}"`));
    const body = own.slice(own.indexOf('<div class="comment-body">'));
    expect(body.startsWith('<div class="comment-body">[deleted]</div>')).toBe(true);
  });

  it('subscribes and unsubscribes, creates forums and saves the bio', async () => {
    const forum = s.db
      .prepare(
        'SELECT name FROM forums WHERE id NOT IN (SELECT forum_id FROM subscriptions WHERE user_id = 1)',
      )
      .get() as { name: string };
    expect((await s.get(`/f/${forum.name}`)).html).toContain('data-subscribed="no"');
    await s.post(`/f/${forum.name}/subscribe`, { action: 'subscribe' });
    expect((await s.get(`/f/${forum.name}`)).html).toContain('data-subscribed="yes"');
    expect((await s.get('/subscriptions')).html).toContain(`f/${forum.name}`);
    await s.post(`/f/${forum.name}/subscribe`, { action: 'unsubscribe' });
    expect((await s.get(`/f/${forum.name}`)).html).toContain('data-subscribed="no"');

    expect((await s.post('/create_forum', { name: 'Bad Name', description: 'x' })).status).toBe(
      400,
    );
    await s.post('/create_forum', { name: 'origami', description: 'Folding paper' });
    const created = (await s.get('/f/origami')).html;
    expect(created).toContain('<h1 id="forum-title">origami</h1>');
    expect(created).toContain('<p id="forum-description">Folding paper</p>');
    expect(created).toContain('data-subscribed="yes"');
    expect((await s.post('/create_forum', { name: 'origami', description: 'Again' })).status).toBe(
      400,
    );

    await s.post('/settings', { bio: 'Paper folder' });
    expect((await s.get(`/user/${s.me}`)).html).toContain('<p id="bio">Paper folder</p>');
  });

  it('keeps each episode instance to itself', async () => {
    s.instances.set('episode-a', new Database(templateDatabase(forumApp, 0)));
    s.instances.set('episode-b', new Database(templateDatabase(forumApp, 0)));
    const a = { [INSTANCE_HEADER]: 'episode-a' };
    const b = { [INSTANCE_HEADER]: 'episode-b' };
    await s.post('/submit', { forum: 'jazz', title: 'Only in episode A', body: '' }, a);
    expect((await s.get('/f/jazz?sort=new', a)).html).toContain('Only in episode A');
    expect((await s.get('/f/jazz?sort=new', b)).html).not.toContain('Only in episode A');
    expect((await s.get('/f/jazz?sort=new')).html).not.toContain('Only in episode A');
    const gone = await s.get('/', { [INSTANCE_HEADER]: 'episode-c' });
    expect(gone.status).toBe(410);
  });
});
