import type { Rng } from '../../core/rng.ts';
import type { Observation } from '../../core/types.ts';
import { storeTemplateOf } from '../../envs/web/sites/store/store-tasks.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';
import {
  click,
  type Move,
  type Route,
  reviewByline,
  StorePage,
  signIn,
  stop,
  toCustomer,
  toOrder,
  toProduct,
  toReport,
  toReview,
  toSection,
  typeInto,
} from './store-expert-page.ts';

/** The store expert's mistake rate. */
export interface StoreExpertOptions {
  /**
   * Chance of a realistic mistake at each decision: a wrong link, a wrong value typed, a stop
   * before the work is done. 0 works perfectly; 0.3 gives offline data with successes and failures.
   */
  epsilon?: number;
}

type Slots = Record<string, string>;

const BESTSELLERS = { link: 'Best sellers', path: '/admin/reports/bestsellers' };
const SALES = { link: 'Sales by month', path: '/admin/reports/sales' };

/**
 * A scripted store admin for `web:store` tasks. It knows the task's template and slots (as the
 * webshop expert knows the goal) but never the site's data: it reads every page from the
 * accessibility-tree text and acts only through the browser env's actions (`click [id]`,
 * `type [id] [text] [0|1]`, `go_back`, `stop [answer]`).
 *
 * Each decision looks at the current page only: the route to the record the task is about (grid
 * search, then the row's link), then the template's work there (read a summary value, fill a
 * field, press a button, confirm). So after a mistake it simply carries on from where it landed.
 * With probability ε a decision is a mistake instead: a random link, a wrong value typed, or a
 * premature stop.
 */
export class StoreExpert implements Policy {
  readonly id: string;
  readonly epsilon: number;

  constructor(options: StoreExpertOptions = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`StoreExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `store-expert(eps=${this.epsilon})`;
  }

  async act(observation: Observation, { task, rng }: PolicyContext): Promise<PolicyAction> {
    const { template, config } = storeTemplateOf(task);
    const slots = (config.instantiation_dict ?? {}) as Slots;
    const page = StorePage.read(observation.text);
    if (!page) return { action: 'go_back', reasoning: 'this page has no readable tree; go back' };
    const move = signIn(page) ?? plan(template.key, slots, page);
    if (this.epsilon > 0 && rng.chance(this.epsilon)) return mistake(move, page, rng);
    return move;
  }
}

/** The next move of template `key` on `page`. */
export function plan(key: string, s: Slots, page: StorePage): Move {
  const product = (ref: { sku?: string; name?: string }, then: () => Move) =>
    follow(toProduct(page, ref), then);
  const order = (then: () => Move) => follow(toOrder(page, s.order as string), then);
  const customer = (then: () => Move) => follow(toCustomer(page, s.customer as string), then);
  const read =
    (label: string, shape: (v: string) => string = (v) => v) =>
    () => {
      const value = page.summary(label);
      return value === undefined
        ? { action: 'scroll [down]', reasoning: `look for ${label}` }
        : stop(shape(value), `${label} reads ${value}`);
    };
  const month = { year: s.year as string, month: s.month as string };
  const reportRow = (report: typeof SALES, heading: string, cell: (cells: string[]) => string) =>
    follow(toReport(page, report, month, heading), () => {
      const row = page
        .rows()
        .find((r) =>
          report === SALES ? r.cells[0] === s.month : r.cells[0] === '1' && r.cells.length >= 5,
        );
      return row ? stop(cell(row.cells), 'read from the report') : stop('', 'the report is empty');
    });
  const arrive = (route: Route) => follow(route, () => stop('', 'this is the page asked for'));

  switch (key) {
    case 'product-price':
      return product({ sku: s.sku }, read('Price'));
    case 'product-qty':
      return product({ name: s.product }, read('Quantity'));
    case 'product-sku':
      return product({ name: s.product }, read('SKU'));
    case 'product-status':
      return product({ name: s.product }, read('Status'));
    case 'product-rating':
      return product(
        { name: s.product },
        read('Average rating', (v) => v.split(' ')[0] ?? v),
      );
    case 'order-status':
      return order(read('Status'));
    case 'order-total':
      return order(read('Grand total'));
    case 'order-customer':
      return order(read('Customer'));
    case 'order-units':
      return order(read('Items ordered'));
    case 'order-date':
      return order(read('Placed', (v) => v.replace(/ \d{1,2}:\d{2}$/, '')));
    case 'customer-email':
      return customer(read('Email'));
    case 'customer-group':
      return customer(read('Group'));
    case 'customer-phone':
      return customer(read('Phone'));
    case 'customer-orders':
      return customer(read('Orders placed'));
    case 'customer-city':
      return customer(read('Address', (v) => /, (.+) \d{5}$/.exec(v)?.[1] ?? v));
    case 'customer-lifetime':
      return customer(read('Lifetime sales'));
    case 'bestseller-month':
      return reportRow(BESTSELLERS, bestsellersHeading(s), (c) => c[1] as string);
    case 'bestseller-units':
      return reportRow(BESTSELLERS, bestsellersHeading(s), (c) => c[3] as string);
    case 'sales-orders':
      return reportRow(SALES, `Sales of ${s.year}`, (c) => c[1] as string);
    case 'sales-canceled':
      return reportRow(SALES, `Sales of ${s.year}`, (c) => c[2] as string);
    case 'sales-revenue':
      return reportRow(SALES, `Sales of ${s.year}`, (c) => c[4] as string);
    case 'product-pending-reviews':
      return product({ name: s.product }, () => {
        const pending = page.texts().filter((t) => /^by .+, \d of 5, Pending$/.test(t)).length;
        return stop(String(pending), `${pending} reviews are pending`);
      });
    case 'review-rating':
      return product({ name: s.product }, () => {
        const byline = page.nodes.map((n) => reviewByline(n, s.nickname as string)).find((m) => m);
        return byline
          ? stop(byline[1] as string, `${s.nickname} gave ${byline[1]} of 5`)
          : stop('', 'no such review');
      });
    case 'order-item-qty':
      return order(() => {
        const row = page.rows().find((r) => r.cells[0] === s.product && r.cells.length === 5);
        return row ? stop(row.cells[3] as string, 'read the Qty column') : stop('', 'not ordered');
      });
    case 'open-product':
      return arrive(toProduct(page, { name: s.product }));
    case 'open-order':
      return arrive(toOrder(page, s.order as string));
    case 'open-customer':
      return arrive(toCustomer(page, s.customer as string));
    case 'open-review': {
      const route = toReview(page, s.product as string, s.nickname as string);
      return arrive(route === 'missing' ? stop('', 'no such review') : route);
    }
    case 'open-bestsellers':
      return arrive(toReport(page, BESTSELLERS, month, bestsellersHeading(s)));
    case 'filter-products':
      return filterProducts(page, s);
    case 'sort-customers':
      return sortCustomers(page, s);
    case 'set-price':
      return product({ name: s.product }, () =>
        editField(page, 'Price', (s.price as string).replace('$', ''), 'Save product', () =>
          samePrice(page.summary('Price'), s.price as string),
        ),
      );
    case 'set-qty':
      return product({ sku: s.sku }, () =>
        editField(
          page,
          'Quantity',
          s.qty as string,
          'Save product',
          () => page.summary('Quantity') === s.qty,
        ),
      );
    case 'disable-product':
    case 'enable-product': {
      const status = key === 'enable-product' ? 'Enabled' : 'Disabled';
      return product({ name: s.product }, () =>
        chooseRadio(page, status, 'Save product', page.summary('Status') === status),
      );
    }
    case 'rename-product':
      if (/^\/admin\/products\/\d+$/.test(page.path) && page.heading === s.name) {
        return stop('', 'the product has its new name');
      }
      return product({ name: s.product }, () =>
        editField(page, 'Product name', s.name as string, 'Save product', () => false),
      );
    case 'cancel-order': {
      const yes = page.button('Yes, cancel the order');
      if (page.heading === `Cancel order #${s.order}?` && yes) return click(yes, 'confirm');
      return order(() => {
        if (page.summary('Status') === 'Canceled') return stop('', 'the order is canceled');
        const link = page.link('Cancel order');
        return link ? click(link, 'ask to cancel the order') : stop('', 'it cannot be canceled');
      });
    }
    case 'process-order':
      return order(() => statusButton(page, 'Processing', 'Start processing'));
    case 'complete-order':
      return order(() => statusButton(page, 'Complete', 'Mark as complete'));
    case 'comment-order':
      return order(() => {
        const comment = s.comment as string;
        if (page.shows(comment)) return stop('', 'the comment is on the order');
        return editField(page, 'Comment', comment, 'Add comment', () => false);
      });
    case 'approve-review':
    case 'reject-review': {
      const [status, label] =
        key === 'approve-review' ? ['Approved', 'Approve review'] : ['Rejected', 'Reject review'];
      const route = toReview(page, s.product as string, s.nickname as string);
      if (route === 'missing') return stop('', 'the review is not listed');
      return follow(route, () => statusButton(page, status, label));
    }
    case 'delete-review':
      return deleteReview(page, s);
    case 'set-email':
      return customer(() =>
        editField(
          page,
          'Email',
          s.email as string,
          'Save customer',
          () => page.summary('Email') === s.email,
        ),
      );
    case 'set-group':
      return customer(() =>
        chooseRadio(page, s.group as string, 'Save customer', page.summary('Group') === s.group),
      );
    case 'set-city':
      return customer(() =>
        editField(page, 'City', s.city as string, 'Save customer', () =>
          (page.summary('Address') ?? '').includes(`, ${s.city} `),
        ),
      );
    case 'create-product':
      return createProduct(page, s);
    default:
      return stop('', `no plan for the template ${key}`);
  }
}

/** Runs `then` once the route has arrived; otherwise the route's move. */
function follow(route: Route, then: () => Move): Move {
  return route === 'arrived' ? then() : route;
}

/** The h2 of the best sellers report for the task's month. */
function bestsellersHeading(s: Slots): string {
  return `Best sellers of ${s.month} ${s.year}`;
}

function samePrice(shown: string | undefined, wanted: string): boolean {
  const amount = (text: string) => Number(text.replace(/[$,]/g, ''));
  return shown !== undefined && amount(shown) === amount(wanted);
}

/**
 * Sets field `label` to `value` and submits with `save`; stops once `done()` says the page shows
 * the change (after the save redirected back).
 */
function editField(
  page: StorePage,
  label: string,
  value: string,
  save: string,
  done: () => boolean,
): Move {
  if (done()) return stop('', `${label} now reads ${value}`);
  const field = page.field(label);
  if (!field) return { action: 'scroll [down]', reasoning: `look for the ${label} field` };
  if (StorePage.valueOf(field) !== value) return typeInto(field, value, false, `enter ${value}`);
  const button = page.button(save);
  return button ? click(button, `${save} to keep ${label}`) : stop('', `no ${save} button`);
}

function chooseRadio(page: StorePage, option: string, save: string, done: boolean): Move {
  if (done) return stop('', `it is ${option} now`);
  const radio = page.radio(option);
  if (!radio) return { action: 'scroll [down]', reasoning: `look for the ${option} option` };
  if (!StorePage.isChecked(radio)) return click(radio, `choose ${option}`);
  const button = page.button(save);
  return button ? click(button, `${save}`) : stop('', `no ${save} button`);
}

function statusButton(page: StorePage, status: string, label: string): Move {
  if (page.summary('Status') === status) return stop('', `the status is ${status}`);
  const button = page.button(label);
  return button ? click(button, label) : stop('', `no ${label} button here`);
}

function filterProducts(page: StorePage, s: Slots): Move {
  const status = (s.status as string).replace(/^\w/, (c) => c.toUpperCase());
  if (page.path !== '/admin/products') return toSection(page, 'Products');
  if (page.params.get('status') !== status) {
    const link = page.navLink('Status', status);
    if (link) return click(link, `filter by status ${status}`);
  }
  if (page.params.get('category') !== s.category) {
    const link = page.navLink('Category', s.category as string);
    if (link) return click(link, `filter by category ${s.category}`);
  }
  return stop('', 'the grid shows what was asked');
}

/** `number of orders, most first` → the column header to click and the direction wanted. */
function sortWanted(order: string): { header: string; sort: string; dir: 'asc' | 'desc' } {
  const [header, sort] = order.startsWith('number of orders')
    ? ['Orders', 'orders']
    : order.startsWith('city')
      ? ['City', 'city']
      : ['Email', 'email'];
  const dir = /most first|Z to A/.test(order) ? 'desc' : 'asc';
  return { header, sort, dir };
}

function sortCustomers(page: StorePage, s: Slots): Move {
  if (page.path !== '/admin/customers') return toSection(page, 'Customers');
  if (page.params.get('group') !== s.group) {
    const link = page.navLink('Group', s.group as string);
    if (link) return click(link, `filter by group ${s.group}`);
  }
  const wanted = sortWanted(s.order as string);
  if (page.params.get('sort') !== wanted.sort || page.params.get('dir') !== wanted.dir) {
    const header = page.nodes.find(
      (n) => n.role === 'columnheader' && (n.name ?? '').startsWith(wanted.header),
    );
    const link = header && page.link(wanted.header, header);
    if (link) return click(link, `sort by ${wanted.header}`);
  }
  return stop('', 'the grid is filtered and sorted as asked');
}

function deleteReview(page: StorePage, s: Slots): Move {
  if (page.shows(`You deleted the review`) && page.shows(`by ${s.nickname}.`)) {
    return stop('', 'the review is deleted');
  }
  if (page.heading === 'Delete review?') {
    const yes = page.button('Yes, delete the review');
    if (yes) return click(yes, 'confirm the deletion');
  }
  const route = toReview(page, s.product as string, s.nickname as string);
  if (route === 'missing') return stop('', 'the review is gone');
  return follow(route, () => {
    const link = page.link('Delete review');
    return link ? click(link, 'ask to delete the review') : stop('', 'no delete link');
  });
}

function createProduct(page: StorePage, s: Slots): Move {
  if (/^\/admin\/products\/\d+$/.test(page.path) && page.heading === s.name) {
    return stop('', 'the product exists');
  }
  if (page.path === '/admin/products/new') {
    const fields: Array<[string, string]> = [
      ['SKU', s.sku as string],
      ['Product name', s.name as string],
      ['Price', (s.price as string).replace('$', '')],
      ['Quantity', s.qty as string],
    ];
    for (const [label, value] of fields) {
      const field = page.field(label);
      if (field && StorePage.valueOf(field) !== value) {
        return typeInto(field, value, false, `enter the ${label}`);
      }
    }
    const create = page.button('Create product');
    if (create) return click(create, 'create the product');
  }
  if (page.path === '/admin/products') {
    const add = page.link('Add product');
    if (add) return click(add, 'open the new product form');
  }
  return toSection(page, 'Products');
}

/** A realistic slip in place of `move`: a wrong value typed, a premature stop, or a wrong link. */
function mistake(move: Move, page: StorePage, rng: Rng): PolicyAction {
  const typed = /^type \[(\d+)\] \[(.*)\] \[([01])\]$/s.exec(move.action);
  const roll = rng.float();
  if (typed && roll < 0.5) {
    return {
      action: `type [${typed[1]}] [${garble(typed[2] as string, rng)}] [${typed[3]}]`,
      reasoning: 'a typo (noise)',
    };
  }
  if (roll < 0.2 || move.action.startsWith('stop [')) {
    const guess = rng.pick(page.texts().filter((t) => t.length > 0 && t.length < 30)) ?? '';
    return {
      action: `stop [${move.action.startsWith('stop [') ? guess : ''}]`,
      reasoning: 'stopped too early (noise)',
    };
  }
  const links = page.links().filter((l) => `click [${l.id}]` !== move.action);
  if (links.length === 0) return { action: 'go_back', reasoning: 'went back by mistake (noise)' };
  return { action: `click [${rng.pick(links).id}]`, reasoning: 'clicked the wrong link (noise)' };
}

/** `text` with one character changed (a digit for a digit, else a letter dropped). */
function garble(text: string, rng: Rng): string {
  if (text.length === 0) return 'x';
  const at = rng.int(text.length);
  const char = text[at] as string;
  const replacement = /\d/.test(char) ? String((Number(char) + 1 + rng.int(8)) % 10) : '';
  return text.slice(0, at) + replacement + text.slice(at + 1);
}
