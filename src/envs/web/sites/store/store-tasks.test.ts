import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../../core/types.ts';
import {
  type ProgramHtmlCheck,
  type WebArenaConfig,
  WebArenaConfigSchema,
} from '../../webarena/config.ts';
import { exactMatch, mustExclude, mustIncludeAny } from '../../webarena/string-match.ts';
import { templateDatabase, webAppRouter } from '../web-app.ts';
import { SESSION_COOKIE } from './session.ts';
import { storeApp } from './store-app.ts';
import {
  STORE_TEMPLATES,
  STORE_TEST_TASK_COUNT,
  storeTask,
  storeTasks,
  storeTemplateOf,
} from './store-tasks.ts';
import { STORE_URL } from './tasks/template.ts';

const configOf = (task: Task) => task.spec as unknown as WebArenaConfig;
const slotsOf = (task: Task) => configOf(task).instantiation_dict as Record<string, string>;

describe('store task templates', () => {
  it('has at least 30 templates with unique ids and keys, each phrased two ways or more', () => {
    expect(STORE_TEMPLATES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(STORE_TEMPLATES.map((t) => t.id)).size).toBe(STORE_TEMPLATES.length);
    expect(new Set(STORE_TEMPLATES.map((t) => t.key)).size).toBe(STORE_TEMPLATES.length);
    for (const t of STORE_TEMPLATES) expect(t.intents.length).toBeGreaterThanOrEqual(2);
    for (const kind of ['info', 'navigation', 'change']) {
      expect(STORE_TEMPLATES.filter((t) => t.kind === kind).length).toBeGreaterThanOrEqual(5);
    }
  });

  it('gives valid WebArena configs for the store site, every template in the test split', () => {
    const test = storeTasks(0).tasks('test');
    expect(test).toHaveLength(STORE_TEST_TASK_COUNT);
    expect(new Set(test.map((t) => configOf(t).intent_template_id)).size).toBe(
      STORE_TEMPLATES.length,
    );
    for (const task of test) {
      const config = WebArenaConfigSchema.parse(task.spec);
      expect(task.env).toBe('web:store');
      expect(task.instruction).toBe(config.intent);
      expect(config.sites).toEqual(['shopping_admin']);
      expect(config.require_login).toBe(true);
      expect(config.start_url).toBe(`${STORE_URL}/admin`);
      expect(config.intent).not.toMatch(/\{\{|\}\}/);
      for (const check of config.eval.program_html ?? [])
        expect(check.url).toMatch(/^__SHOPPING_ADMIN__\//);
      if (config.eval.eval_types.includes('url_match')) {
        expect(config.eval.reference_url).toMatch(/^__SHOPPING_ADMIN__\//);
      }
    }
  });

  it('is deterministic, and asking for more tasks never changes the earlier ones', () => {
    const few = storeTasks(0).tasks('train', 20);
    const more = storeTasks(0).tasks('train', 60);
    expect(more.slice(0, 20)).toEqual(few);
    expect(storeTask(5, 0)).toEqual(storeTask(5, 0));
    const test = new Set(
      storeTasks(0)
        .tasks('test')
        .map((t) => t.id),
    );
    expect(few.some((t) => test.has(t.id))).toBe(false);
    expect(storeTask(40, 1).instruction).not.toBe(storeTask(40, 0).instruction);
    expect(() => storeTasks(0).tasks('test', STORE_TEST_TASK_COUNT + 1)).toThrow(/train split/);
  });

  it('holds well over 500 distinct tasks', () => {
    const all = [...storeTasks(0).tasks('test'), ...storeTasks(0).tasks('train')];
    expect(new Set(all.map((t) => t.instruction)).size).toBeGreaterThanOrEqual(500);
  });
});

/** The text of the element with `id` (or the first `tag`) in a page, tags stripped. */
function elementText(html: string, selector: string): string {
  const open = selector.startsWith('#')
    ? new RegExp(`<(\\w+)[^>]* id="${selector.slice(1)}"[^>]*>`).exec(html)
    : new RegExp(`<(${selector})[^>]*>`).exec(html);
  if (!open) return '';
  const tag = open[1] as string;
  let depth = 1;
  const tags = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g');
  tags.lastIndex = open.index + open[0].length;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) {
      return html
        .slice(open.index + open[0].length, m.index)
        .replace(/<[^>]+>/g, ' ')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&')
        .replace(/\s+/g, ' ')
        .trim();
    }
  }
  return '';
}

/** What a program_html locator of ours reads. */
function locate(html: string, locator: string): string {
  const selector = /querySelector\((["'])(.+?)\1\)/.exec(locator)?.[2] as string;
  return elementText(html, selector);
}

function meets(text: string, contents: Record<string, unknown>): boolean {
  const exact = contents.exact_match as string | undefined;
  const include = (contents.must_include as string[] | undefined) ?? [];
  const exclude = (contents.must_exclude as string[] | undefined) ?? [];
  return (
    (exact === undefined || exactMatch(exact, text)) &&
    include.every((entry) => mustIncludeAny(entry, text)) &&
    exclude.every((entry) => mustExclude(entry, text))
  );
}

/** A fresh signed-in copy of the store, requested in-process. */
function freshStore() {
  const db = new Database(templateDatabase(storeApp, 0));
  const app = webAppRouter(storeApp, () => db);
  const cookie = `${SESSION_COOKIE}=${storeApp.loginCookies?.(db)[SESSION_COOKIE]}`;
  const get = async (path: string) => (await app.request(path, { headers: { cookie } })).text();
  const post = async (path: string, form: Record<string, string>) => {
    const response = await app.request(path, {
      method: 'POST',
      headers: { cookie },
      body: new URLSearchParams(form),
    });
    expect(response.status).toBe(303);
  };
  return { db, get, post };
}

/** Does what a change task asks straight through the site's forms (no browser, no expert). */
async function solve(task: Task, store: ReturnType<typeof freshStore>): Promise<void> {
  const { template } = storeTemplateOf(task);
  const s = slotsOf(task);
  const { db, post } = store;
  const product = (where: string, value: string) =>
    db.prepare(`SELECT * FROM products WHERE ${where} = ?`).get(value) as Record<string, string>;
  const productForm = (p: Record<string, string>, changes: Record<string, string>) =>
    post(`/admin/products/${p.id}`, {
      name: p.name as string,
      price: (Number(p.price_cents) / 100).toFixed(2),
      qty: String(p.qty),
      color: p.color as string,
      status: p.status as string,
      ...changes,
    });
  const order = () =>
    db.prepare('SELECT id FROM orders WHERE number = ?').get(s.order) as { id: number };
  const customer = () =>
    db
      .prepare("SELECT * FROM customers WHERE first_name || ' ' || last_name = ?")
      .get(s.customer) as Record<string, string>;
  const customerForm = (changes: Record<string, string>) => {
    const c = customer();
    return post(`/admin/customers/${c.id}`, { ...c, group: c.group_name as string, ...changes });
  };
  const review = () =>
    db
      .prepare(
        'SELECT r.id FROM reviews r JOIN products p ON p.id = r.product_id WHERE p.name = ? AND r.nickname = ?',
      )
      .get(s.product, s.nickname) as { id: number };
  switch (template.key) {
    case 'set-price':
      return productForm(product('name', s.product as string), {
        price: (s.price as string).slice(1),
      });
    case 'set-qty':
      return productForm(product('sku', s.sku as string), { qty: s.qty as string });
    case 'disable-product':
      return productForm(product('name', s.product as string), { status: 'Disabled' });
    case 'enable-product':
      return productForm(product('name', s.product as string), { status: 'Enabled' });
    case 'rename-product':
      return productForm(product('name', s.product as string), { name: s.name as string });
    case 'cancel-order':
      return post(`/admin/orders/${order().id}/cancel`, {});
    case 'process-order':
      return post(`/admin/orders/${order().id}/status`, { to: 'Processing' });
    case 'complete-order':
      return post(`/admin/orders/${order().id}/status`, { to: 'Complete' });
    case 'comment-order':
      return post(`/admin/orders/${order().id}/comments`, { comment: s.comment as string });
    case 'approve-review':
      return post(`/admin/reviews/${review().id}/status`, { to: 'Approved' });
    case 'reject-review':
      return post(`/admin/reviews/${review().id}/status`, { to: 'Rejected' });
    case 'delete-review':
      return post(`/admin/reviews/${review().id}/delete`, {});
    case 'set-email':
      return customerForm({ email: s.email as string });
    case 'set-group':
      return customerForm({ group: s.group as string });
    case 'set-city':
      return customerForm({ city: s.city as string });
    case 'create-product':
      return post('/admin/products', {
        sku: s.sku as string,
        name: s.name as string,
        price: (s.price as string).slice(1),
        qty: s.qty as string,
        color: '',
        status: 'Enabled',
      });
    default:
      throw new Error(`no solution for ${template.key}`);
  }
}

describe('store task checks', () => {
  const sample = [...storeTasks(0).tasks('test'), ...storeTasks(0).tasks('train', 200)];

  it('fails every change task on the untouched store and passes it once the change is made', async () => {
    const changes = sample.filter((t) => storeTemplateOf(t).template.kind === 'change');
    expect(changes.length).toBeGreaterThan(100);
    for (const task of changes) {
      const store = freshStore();
      const check = (configOf(task).eval.program_html ?? [])[0] as ProgramHtmlCheck;
      const path = check.url.replace(STORE_URL, '');
      const before = locate(await store.get(path), check.locator as string);
      expect(meets(before, check.required_contents ?? {}), `${task.id} before: ${before}`).toBe(
        false,
      );
      await solve(task, store);
      const after = locate(await store.get(path), check.locator as string);
      expect(meets(after, check.required_contents ?? {}), `${task.id} after: ${after}`).toBe(true);
      store.db.close();
    }
  });

  it('points every navigation task at a page about what its intent names', async () => {
    const store = freshStore();
    for (const task of sample.filter((t) => storeTemplateOf(t).template.kind === 'navigation')) {
      const url = (configOf(task).eval.reference_url as string).replace(STORE_URL, '');
      expect(url).not.toBe('/admin');
      const page = (await store.get(url)).replace(/<[^>]+>/g, ' ');
      for (const value of Object.values(slotsOf(task))) {
        if (/^(number of|city,|email,)/.test(value)) continue;
        expect(page.toLowerCase(), `${task.id}: ${value}`).toContain(value.toLowerCase());
      }
    }
  });

  it('answers information tasks with what the data says', () => {
    const db = new Database(templateDatabase(storeApp, 0), { readonly: true });
    const answerOf = (task: Task) => {
      const refs = configOf(task).eval.reference_answers ?? {};
      return String(refs.exact_match ?? (refs.must_include ?? []).join(' |OR| '));
    };
    const one = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).get(...args) as T;
    let checked = 0;
    for (const task of sample) {
      const s = slotsOf(task);
      const answer = answerOf(task);
      switch (storeTemplateOf(task).template.key) {
        case 'product-qty':
          expect(answer).toBe(
            String(one<{ qty: number }>('SELECT qty FROM products WHERE name = ?', s.product).qty),
          );
          break;
        case 'product-sku':
          expect(answer).toBe(
            one<{ sku: string }>('SELECT sku FROM products WHERE name = ?', s.product).sku,
          );
          break;
        case 'order-customer':
          expect(answer).toBe(
            one<{ n: string }>(
              "SELECT c.first_name || ' ' || c.last_name AS n FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.number = ?",
              s.order,
            ).n,
          );
          break;
        case 'order-units': {
          const lines = db
            .prepare(
              'SELECT i.qty FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.number = ?',
            )
            .all(s.order) as Array<{ qty: number }>;
          expect(answer).toBe(String(lines.reduce((sum, l) => sum + l.qty, 0)));
          break;
        }
        case 'customer-email':
          expect(answer).toBe(
            one<{ email: string }>(
              "SELECT email FROM customers WHERE first_name || ' ' || last_name = ?",
              s.customer,
            ).email,
          );
          break;
        case 'review-rating':
          expect(answer).toBe(
            String(
              one<{ rating: number }>(
                'SELECT rating FROM reviews r JOIN products p ON p.id = r.product_id WHERE p.name = ? AND r.nickname = ?',
                s.product,
                s.nickname,
              ).rating,
            ),
          );
          break;
        default:
          continue;
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
    db.close();
  });
});
