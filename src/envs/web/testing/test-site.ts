import { createServer } from 'node:net';
import type Database from 'better-sqlite3';
import type { Hono } from 'hono';
import { Rng } from '../../../core/rng.ts';
import { escapeHtml, type WebAppDefinition, type WebAppEnv } from '../sites/web-app.ts';

/**
 * A small site for browser tests, served in-process like our built-in web apps (a private SQLite
 * copy per episode): links, a search form, a contact form with a select, a checkbox and a
 * textarea, settings with radios, a link that opens a second tab, content added by a script, a
 * slow page, a broken link (404), a link to a server that refuses connections, and a page that
 * shows what the browser remembers (cookie, local and session storage, the HTTP cache). It stands in for
 * WebArena's `homepage` site in task configs (`__HOMEPAGE__`).
 */

/** One product of the generated catalog. */
export interface TestProduct {
  id: number;
  name: string;
  /** As shown on the page, e.g. `$24.99`. */
  price: string;
}

const ADJECTIVES = ['Blue', 'Quiet', 'Sturdy', 'Tiny', 'Golden', 'Woolen', 'Folding', 'Spare'];
const NOUNS = ['Kettle', 'Lamp', 'Ladder', 'Teapot', 'Backpack', 'Blanket', 'Chair', 'Bucket'];
export const TOPICS = ['General', 'Orders', 'Returns'] as const;

/** The products the site shows for `seed`: names and prices are drawn, never typed by hand. */
export function testProducts(seed: number): TestProduct[] {
  const rng = new Rng(seed).fork('test-site-products');
  const nouns = rng.shuffle(NOUNS);
  return rng.shuffle(ADJECTIVES).map((adjective, i) => ({
    id: i + 1,
    name: `${adjective} ${nouns[i]}`,
    price: `$${rng.between(3, 90)}.${String(rng.int(100)).padStart(2, '0')}`,
  }));
}

/** A port on 127.0.0.1 that nothing listens on (taken, then released), for the dead link. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 9;
}

export interface TestSiteOptions {
  /** Where the "Dead server" link points (a port nothing listens on). */
  deadUrl: string;
  /** How long `/slow` takes to answer, ms (`/slow?ms=N` says otherwise). Default 3000. */
  slowMs?: number;
}

/** The test site as a built-in web app (serve it with `BuiltInSites` or `startWebApp`). */
export function testSite(options: TestSiteOptions): WebAppDefinition {
  return {
    name: 'testsite',
    site: 'homepage',
    description: 'a small site for browser tests: links, forms, tabs, a slow page, broken links',
    build: buildTestSite,
    routes: (app) => testSiteRoutes(app, options),
  };
}

function buildTestSite(db: Database.Database, seed: number): void {
  db.exec(`
    CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, name TEXT, topic TEXT, subscribe INTEGER, body TEXT);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO settings VALUES ('newsletter', 'off'), ('theme', 'light');
  `);
  const insert = db.prepare('INSERT INTO products (id, name, price) VALUES (?, ?, ?)');
  for (const product of testProducts(seed)) insert.run(product.id, product.name, product.price);
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/contact">Contact</a> <a href="/settings">Settings</a></nav>
<main>${body}</main></body></html>`;

function testSiteRoutes(app: Hono<WebAppEnv>, options: TestSiteOptions): void {
  app.get('/', (c) =>
    c.html(
      page(
        'Test Site — Home',
        `<h1>Welcome</h1><p>A small site for browser tests.</p>
<ul>
<li><a href="/help" target="_blank">Help (new tab)</a></li>
<li><a href="/slow">Slow page</a></li>
<li><a href="/missing">Broken link</a></li>
<li><a href="${escapeHtml(options.deadUrl)}">Dead server</a></li>
</ul>
<button id="reveal" type="button">Show more</button><div id="more"></div>
<script>
document.getElementById('reveal').addEventListener('click', () => {
  document.getElementById('more').innerHTML = '<p>More content here.</p><a href="/products">All products</a>';
});
</script>`,
      ),
    ),
  );

  app.get('/products', (c) => {
    const q = (c.req.query('q') ?? '').trim();
    const rows = c.var.db
      .prepare('SELECT id, name, price FROM products WHERE name LIKE ? ORDER BY id')
      .all(`%${q}%`) as TestProduct[];
    const items = rows
      .map((p) => `<li><a href="/products/${p.id}">${escapeHtml(p.name)}</a> ${p.price}</li>`)
      .join('');
    return c.html(
      page(
        q ? `Products matching ${q}` : 'Products',
        `<h1>Products</h1>
<form role="search" action="/products"><input type="search" name="q" aria-label="Search products" value="${escapeHtml(q)}"><button>Search</button></form>
<p>${rows.length} products</p><ul>${items}</ul>`,
      ),
    );
  });

  app.get('/products/:id', (c) => {
    const product = c.var.db
      .prepare('SELECT id, name, price FROM products WHERE id = ?')
      .get(Number(c.req.param('id'))) as TestProduct | undefined;
    if (!product) return c.html(page('Not found', '<h1>No such product</h1>'), 404);
    return c.html(
      page(
        product.name,
        `<h1>${escapeHtml(product.name)}</h1><p>Price: ${product.price}</p>
<div style="height: 3000px">A long description.</div><p>End of page.</p>`,
      ),
    );
  });

  app.get('/contact', (c) =>
    c.html(
      page(
        'Contact',
        `<h1>Contact us</h1>
<form method="post" action="/contact">
<label>Your name <input name="name" required></label>
<label>Topic <select name="topic">${TOPICS.map((t) => `<option>${t}</option>`).join('')}</select></label>
<label><input type="checkbox" name="subscribe"> Subscribe to news</label>
<label>Message <textarea name="body"></textarea></label>
<button type="submit">Send</button>
</form>`,
      ),
    ),
  );

  app.post('/contact', async (c) => {
    const form = await c.req.parseBody();
    c.var.db
      .prepare('INSERT INTO messages (name, topic, subscribe, body) VALUES (?, ?, ?, ?)')
      .run(
        String(form.name ?? ''),
        String(form.topic ?? ''),
        form.subscribe ? 1 : 0,
        String(form.body ?? ''),
      );
    return c.redirect('/messages', 303);
  });

  app.get('/messages', (c) => {
    const rows = c.var.db
      .prepare('SELECT name, topic, subscribe, body FROM messages ORDER BY id')
      .all() as Array<{ name: string; topic: string; subscribe: number; body: string }>;
    const items = rows
      .map(
        (m) =>
          `<li>${escapeHtml(m.name)} (${escapeHtml(m.topic)}${m.subscribe ? ', subscribed' : ''}): ${escapeHtml(m.body)}</li>`,
      )
      .join('');
    return c.html(page('Messages', `<h1>Messages</h1><ul id="messages">${items}</ul>`));
  });

  app.get('/settings', (c) => {
    const settings = Object.fromEntries(
      (
        c.var.db.prepare('SELECT key, value FROM settings').all() as Array<{
          key: string;
          value: string;
        }>
      ).map((row) => [row.key, row.value]),
    );
    const radio = (value: string) =>
      `<label><input type="radio" name="theme" value="${value}"${settings.theme === value ? ' checked' : ''}> ${value}</label>`;
    return c.html(
      page(
        'Settings',
        `<h1>Settings</h1>
<form method="post" action="/settings">
<label><input type="checkbox" name="newsletter"${settings.newsletter === 'on' ? ' checked' : ''}> Newsletter</label>
<fieldset><legend>Theme</legend>${radio('light')}${radio('dark')}</fieldset>
<button type="submit">Save</button>
</form>`,
      ),
    );
  });

  app.post('/settings', async (c) => {
    const form = await c.req.parseBody();
    const set = c.var.db.prepare('UPDATE settings SET value = ? WHERE key = ?');
    set.run(form.newsletter ? 'on' : 'off', 'newsletter');
    set.run(form.theme === 'dark' ? 'dark' : 'light', 'theme');
    return c.redirect('/settings', 303);
  });

  // Input whose effect comes a moment later: a navigation a task after the click; and a link
  // with no box to click.
  app.get('/scripted', (c) =>
    c.html(
      page(
        'Scripted',
        `<h1>Scripted</h1><button id="later" type="button">Go later</button>
<a href="/help" style="display:inline-block;width:0;height:0;overflow:hidden">Boxless help</a>
<script>
document.getElementById('later').addEventListener('click', () => {
  setTimeout(() => { location.href = '/slow?ms=500'; }, 0);
});
</script>`,
      ),
    ),
  );

  app.get('/help', (c) => c.html(page('Help', '<h1>Help</h1><p>Ask us anything.</p>')));

  // What the browser remembers, then remembered: a cookie, local and session storage, and this
  // response in the HTTP cache for an hour (it names the episode instance that was served it).
  app.get('/memory', (c) => {
    c.header('Set-Cookie', 'visited=yes; Path=/');
    c.header('Cache-Control', 'max-age=3600');
    return c.html(
      page(
        'Memory',
        `<h1>Memory</h1><p id="served">served to ${escapeHtml(c.var.instance)}</p><p id="seen"></p>
<script>
const had = (value) => (value ? 'yes' : 'no');
document.getElementById('seen').textContent =
  'cookie ' + had(document.cookie.includes('seen=yes')) +
  ', local ' + had(localStorage.getItem('seen')) +
  ', session ' + had(sessionStorage.getItem('seen'));
document.cookie = 'seen=yes; path=/';
localStorage.setItem('seen', 'yes');
sessionStorage.setItem('seen', 'yes');
</script>`,
      ),
    );
  });

  app.get('/slow', async (c) => {
    const ms = Number(c.req.query('ms') ?? options.slowMs ?? 3000);
    await new Promise((resolve) => setTimeout(resolve, ms).unref());
    return c.html(page('Slow page', '<h1>Finally</h1>'));
  });

  app.notFound((c) => c.html(page('Not found', '<h1>404: page not found</h1>'), 404));
}
