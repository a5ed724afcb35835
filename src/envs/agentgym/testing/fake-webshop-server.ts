import type { Context } from 'hono';
import { type FakeServer, fastapiLikeApp, listen, unprocessable } from './serve.ts';

/**
 * A fake of AgentGym's `agentenv-webshop` server for tests: the same endpoints, field names,
 * types and error behaviour (FastAPI 422s, a 500 for an unknown `env_idx`, `/reset` answering an
 * `(observation, null)` pair, `/create` answering a large non-sequential id), over a tiny scripted
 * shop rendered in WebShop's simple text mode (`… [SEP] …`). Stepping follows WebAgentTextEnv:
 * `search[…]` runs from any page; `click[x]` needs the lowercased `x` among the page's clickables
 * and not `search`; anything else leaves the page as it was, reward 0.
 *
 * Goal `i` (0 ≤ i < {@link FAKE_WEBSHOP_GOALS}) asks for product `i % 6`, maybe in one option,
 * under a budget; buying it with that option and within budget earns 1.
 */
export const FAKE_WEBSHOP_GOALS = 7000;

/** Results per page; small, so that `next >` shows up in a 6-product shop. */
const PER_PAGE = 3;

interface Product {
  asin: string;
  title: string;
  price: number;
  options: Record<string, string[]>;
}

const FAKE_PRODUCTS: readonly Product[] = [
  {
    asin: 'B0FAKE0001',
    title: 'Red ceramic coffee mug',
    price: 12.99,
    options: { size: ['small', 'large'] },
  },
  {
    asin: 'B0FAKE0002',
    title: 'Blue enamel camping mug',
    price: 15.5,
    options: { color: ['blue', 'navy'] },
  },
  // "X-Large" has capitals: the real server can never click it (it lowercases the argument).
  {
    asin: 'B0FAKE0003',
    title: 'Steel travel mug',
    price: 24,
    options: { size: ['12 oz', 'X-Large'] },
  },
  { asin: 'B0FAKE0004', title: 'Cotton crew socks', price: 9.99, options: { size: ['m', 'l'] } },
  { asin: 'B0FAKE0005', title: 'Wool hiking socks', price: 18, options: {} },
  { asin: 'B0FAKE0006', title: 'Bamboo cutting board', price: 21.25, options: {} },
];

export interface FakeWebShopGoal {
  instruction: string;
  asin: string;
  option?: string;
  budget: number;
}

/** Goal `index` of the fake shop. */
export function fakeWebShopGoal(index: number): FakeWebShopGoal {
  const product = FAKE_PRODUCTS[index % FAKE_PRODUCTS.length] as Product;
  const values = Object.values(product.options)[0]?.filter((v) => v === v.toLowerCase()) ?? [];
  const option = values[Math.floor(index / FAKE_PRODUCTS.length) % (values.length || 1)];
  const budget = Math.ceil(product.price / 10) * 10 + 10 * (index % 3);
  const wanted = option === undefined ? '' : ` in ${option}`;
  return {
    instruction: `i need a ${product.title.toLowerCase()}${wanted}, and price lower than ${budget}.00 dollars`,
    asin: product.asin,
    ...(option !== undefined && { option }),
    budget,
  };
}

type Page =
  | { kind: 'index' }
  | { kind: 'results'; keywords: string[]; page: number }
  | { kind: 'item'; keywords: string[]; page: number; asin: string }
  | { kind: 'sub'; keywords: string[]; page: number; asin: string; section: string }
  | { kind: 'done'; asin: string; reward: number };

interface Session {
  goal: FakeWebShopGoal | undefined;
  page: Page;
  options: Record<string, string>;
}

/** A running fake WebShop server: its URL, the calls it received, faults to inject, and close(). */
export interface FakeWebShopServer extends FakeServer {
  /** `env_idx`es closed through `/close`. */
  readonly closed: number[];
  /** `env_idx`es open now. */
  openSessions(): number[];
}

/** Options of the fake WebShop server. */
export interface FakeWebShopOptions {
  /** Serve `/close` (AgentGym added it later; older servers answer 404). Default true. */
  withClose?: boolean;
}

/**
 * Starts a fake AgentGym WebShop server on a free local port, with scripted goals and injectable
 * faults.
 */
export async function startFakeWebShopServer(
  options: FakeWebShopOptions = {},
): Promise<FakeWebShopServer> {
  const { app, calls, faults } = fastapiLikeApp();
  const sessions = new Map<number, Session>();
  const closed: number[] = [];
  let created = 0;

  /** The session of `env_idx`, or the KeyError that FastAPI turns into a 500. */
  const session = (idx: number): Session => {
    const found = sessions.get(idx);
    if (!found) throw new Error(`KeyError: ${idx}`);
    return found;
  };

  app.get('/', (c) => c.json('ok'));
  app.post('/create', (c) => {
    // Like the real server: a random id in [0, 48950076], not a counter.
    const idx = (1_000_003 * ++created + 17) % 48_950_077;
    sessions.set(idx, { goal: undefined, page: { kind: 'index' }, options: {} });
    return c.json(idx);
  });
  app.post('/reset', async (c) => {
    const body = await c.req.json();
    if (!Number.isInteger(body.env_idx)) return unprocessable(c, 'body', 'env_idx');
    const sessionId = body.session_id ?? 0;
    if (!Number.isInteger(sessionId)) return unprocessable(c, 'body', 'session_id');
    const s = session(body.env_idx);
    if (sessionId < 0 || sessionId >= FAKE_WEBSHOP_GOALS) throw new Error('IndexError');
    Object.assign(s, { goal: fakeWebShopGoal(sessionId), page: { kind: 'index' }, options: {} });
    return c.json([render(s).text, null]);
  });
  app.post('/step', async (c) => {
    const body = await c.req.json();
    if (!Number.isInteger(body.env_idx)) return unprocessable(c, 'body', 'env_idx');
    if (typeof body.action !== 'string') return unprocessable(c, 'body', 'action');
    const s = session(body.env_idx);
    const reward = step(s, body.action);
    return c.json({ state: render(s).text, reward, done: s.page.kind === 'done', info: null });
  });
  const withSession = (handler: (c: Context, s: Session) => Response) => (c: Context) => {
    const idx = Number(c.req.query('env_idx'));
    if (!Number.isInteger(idx)) return unprocessable(c, 'query', 'env_idx');
    return handler(c, session(idx));
  };
  app.get(
    '/available_actions',
    withSession((c, s) => {
      const { hasSearchBar, clickables } = render(s);
      return c.json({ has_search_bar: hasSearchBar, clickables });
    }),
  );
  app.get(
    '/observation',
    withSession((c, s) => c.json(render(s).text)),
  );
  app.get(
    '/instruction_text',
    withSession((c, s) => c.json(`Instruction: ${s.goal?.instruction ?? ''}`)),
  );
  if (options.withClose ?? true) {
    app.post('/close', async (c) => {
      const body = await c.req.json();
      if (!Number.isInteger(body.env_idx)) return unprocessable(c, 'body', 'env_idx');
      const known = sessions.delete(body.env_idx);
      if (known) closed.push(body.env_idx);
      return c.json({ closed: known });
    });
  }

  const server = await listen(app, calls, faults);
  return { ...server, closed, openSessions: () => [...sessions.keys()] };
}

/** Applies one action as WebAgentTextEnv.step does; returns the reward. */
function step(s: Session, action: string): number {
  const match = /^(.+)\[(.+)\]$/.exec(action);
  const verb = match?.[1];
  const arg = match?.[2]?.toLowerCase();
  if (verb === 'search' && arg) {
    s.page = { kind: 'results', keywords: arg.split(' '), page: 1 };
    s.options = {};
    return 0;
  }
  if (verb !== 'click' || arg === undefined || arg === 'search') return 0;
  if (!render(s).clickables.includes(arg)) return 0;
  return click(s, arg);
}

function click(s: Session, label: string): number {
  const page = s.page;
  if (label === 'back to search') s.page = { kind: 'index' };
  else if (page.kind === 'results' && label === 'next >') page.page += 1;
  else if (page.kind === 'results' && label === '< prev') page.page -= 1;
  else if (page.kind === 'results') {
    s.page = { ...page, kind: 'item', asin: label.toUpperCase() };
    s.options = {};
  } else if (page.kind === 'sub') s.page = { ...page, kind: 'item' };
  else if (page.kind === 'item' && label === '< prev') {
    s.page = { kind: 'results', keywords: page.keywords, page: page.page };
  } else if (page.kind === 'item' && label === 'buy now') {
    const reward = purchaseReward(s, page.asin);
    s.page = { kind: 'done', asin: page.asin, reward };
    return reward;
  } else if (page.kind === 'item' && ['description', 'features', 'reviews'].includes(label)) {
    s.page = { ...page, kind: 'sub', section: label };
  } else if (page.kind === 'item') {
    const product = productOf(page.asin);
    const group = Object.entries(product.options).find(([, values]) => values.includes(label));
    if (group) s.options[group[0]] = label;
  }
  return 0;
}

function purchaseReward(s: Session, asin: string): number {
  const goal = s.goal;
  if (!goal || goal.asin !== asin) return 0;
  const optionOk = goal.option === undefined || Object.values(s.options).includes(goal.option);
  const priceOk = productOf(asin).price <= goal.budget;
  return (1 + Number(optionOk) + Number(priceOk)) / 3;
}

function productOf(asin: string): Product {
  const product = FAKE_PRODUCTS.find((p) => p.asin === asin);
  if (!product) throw new Error(`KeyError: ${asin}`);
  return product;
}

/** Products ranked by how many keywords their title holds, then by ASIN. */
function search(keywords: readonly string[]): Product[] {
  const score = (p: Product) => keywords.filter((k) => p.title.toLowerCase().includes(k)).length;
  return [...FAKE_PRODUCTS].sort((a, b) => score(b) - score(a) || a.asin.localeCompare(b.asin));
}

/** The page as the text env shows it: simple text mode, clickables, search bar. */
function render(s: Session): { text: string; clickables: string[]; hasSearchBar: boolean } {
  const instruction = ['Instruction:', s.goal?.instruction ?? ''];
  const page = s.page;
  const out = (parts: string[], clickables: string[], hasSearchBar = false) => ({
    text: parts.join(' [SEP] '),
    clickables,
    hasSearchBar,
  });
  switch (page.kind) {
    case 'index':
      return out(['WebShop', ...instruction, 'Search'], ['search'], true);
    case 'results': {
      const results = search(page.keywords);
      const shown = results.slice((page.page - 1) * PER_PAGE, page.page * PER_PAGE);
      const prev = page.page > 1 ? ['< Prev'] : [];
      const next = page.page * PER_PAGE < results.length ? ['Next >'] : [];
      return out(
        [
          ...instruction,
          'Back to Search',
          `Page ${page.page} (Total results: ${results.length})`,
          ...prev,
          ...next,
          ...shown.flatMap((p) => [p.asin, p.title, `$${p.price.toFixed(2)}`]),
        ],
        ['back to search', ...[...prev, ...next].map((b) => b.toLowerCase())].concat(
          shown.map((p) => p.asin.toLowerCase()),
        ),
      );
    }
    case 'item': {
      const product = productOf(page.asin);
      const buttons = ['Description', 'Features', 'Reviews', 'Buy Now'];
      return out(
        [
          ...instruction,
          'Back to Search',
          '< Prev',
          ...Object.entries(product.options).flatMap(([name, values]) => [name, ...values]),
          product.title,
          `Price: $${product.price.toFixed(2)}`,
          'Rating: N.A.',
          ...buttons,
        ],
        ['back to search', '< prev', ...buttons.map((b) => b.toLowerCase())].concat(
          Object.values(product.options).flat(),
        ),
      );
    }
    case 'sub':
      return out(
        [...instruction, 'Back to Search', '< Prev', `${page.section} of ${page.asin}`],
        ['back to search', '< prev'],
      );
    case 'done':
      return out(
        [
          'Thank you for shopping with us!',
          'Your code:',
          'None',
          'Purchased',
          'asin',
          page.asin,
          'options',
          JSON.stringify(s.options),
          'Your score (min 0.0, max 1.0)',
          String(page.reward),
        ],
        [],
      );
  }
}
