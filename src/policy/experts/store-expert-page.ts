/**
 * How the store expert reads a store admin page from the accessibility-tree text alone, and the
 * routes it takes to a record (a product, an order, a customer, a review, a report period): each
 * route looks at the current page and gives the next action, or `arrived`.
 */

import {
  parseTree,
  prop,
  subtree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';

/** What the expert does next: an action with its reason. */
export interface Move {
  action: string;
  reasoning: string;
}

export const click = (node: TreeNode, reasoning: string): Move => ({
  action: `click [${node.id}]`,
  reasoning,
});

/** Types into a field; `submit` presses Enter after (search boxes). */
export const typeInto = (
  node: TreeNode,
  text: string,
  submit: boolean,
  reasoning: string,
): Move => ({
  action: `type [${node.id}] [${text}] [${submit ? 1 : 0}]`,
  reasoning,
});

export const stop = (answer: string, reasoning: string): Move => ({
  action: `stop [${answer}]`,
  reasoning,
});

const CELL_ROLES = new Set(['cell', 'gridcell', 'rowheader', 'columnheader']);
const FIELD_ROLES = new Set(['textbox', 'searchbox']);

/** A store page as the expert sees it. */
export class StorePage {
  readonly path: string;
  readonly params: URLSearchParams;
  readonly nodes: readonly TreeNode[];
  /** The page's h1 (the first heading). */
  readonly heading: string;

  constructor(readonly tree: WebTree) {
    let url: URL | undefined;
    try {
      url = new URL(tree.url ?? '');
    } catch {
      url = undefined;
    }
    this.path = url?.pathname.replace(/\/+$/, '') ?? '';
    this.params = url?.searchParams ?? new URLSearchParams();
    this.nodes = tree.nodes;
    this.heading = this.nodes.find((n) => n.role === 'heading')?.name ?? '';
  }

  /** The page of an observation text, or undefined when it is not a tree page. */
  static read(text: string): StorePage | undefined {
    const tree = parseTree(text);
    return tree ? new StorePage(tree) : undefined;
  }

  /** The first node of `role` named `name` (within `scope`'s subtree if given). */
  find(role: string | ReadonlySet<string>, name: string, scope?: TreeNode): TreeNode | undefined {
    const roles = typeof role === 'string' ? new Set([role]) : role;
    return this.within(scope).find((n) => roles.has(n.role) && n.name === name);
  }

  /** The nodes of `scope`'s subtree (the whole page without one). */
  within(scope?: TreeNode): readonly TreeNode[] {
    if (!scope) return this.nodes;
    const [start, end] = subtree(this.nodes, this.nodes.indexOf(scope));
    return this.nodes.slice(start + 1, end);
  }

  link(name: string, scope?: TreeNode): TreeNode | undefined {
    return this.find('link', name, scope);
  }

  button(name: string): TreeNode | undefined {
    return this.find('button', name);
  }

  /** A text field by its label. */
  field(label: string): TreeNode | undefined {
    return this.find(FIELD_ROLES, label);
  }

  /** A field's current text (its `value` property). */
  static valueOf(field: TreeNode): string {
    return prop(field, 'value') ?? '';
  }

  radio(name: string): TreeNode | undefined {
    return this.find('radio', name);
  }

  static isChecked(node: TreeNode): boolean {
    return /^true$/i.test(prop(node, 'checked') ?? '');
  }

  /** A link inside the navigation landmark named `nav` (e.g. `Main`, `Status`, `Year`). */
  navLink(nav: string, name: string): TreeNode | undefined {
    const landmark = this.find('navigation', nav);
    return landmark ? this.link(name, landmark) : undefined;
  }

  /** The value beside a row header in a summary table (`Price` → `$23.50`). */
  summary(label: string): string | undefined {
    const header = this.nodes.findIndex((n) => n.role === 'rowheader' && n.name === label);
    if (header < 0) return undefined;
    const depth = (this.nodes[header] as TreeNode).depth;
    for (let i = header + 1; i < this.nodes.length; i++) {
      const node = this.nodes[i] as TreeNode;
      if (node.depth < depth) break;
      if (node.depth === depth && CELL_ROLES.has(node.role)) return node.name ?? '';
    }
    return undefined;
  }

  /** Every table row: the row node and its cells' texts, header rows included. */
  rows(): Array<{ row: TreeNode; cells: string[] }> {
    return this.nodes.flatMap((row) => {
      if (row.role !== 'row') return [];
      const cells = this.within(row)
        .filter((n) => n.depth === row.depth + 1 && CELL_ROLES.has(n.role))
        .map((n) => (n.name ?? '').trim());
      return [{ row, cells }];
    });
  }

  /** The first row with a cell reading exactly `text`. */
  rowWith(text: string): { row: TreeNode; cells: string[] } | undefined {
    return this.rows().find((r) => r.cells.includes(text));
  }

  /** Texts shown on the page (StaticText lines), trimmed. */
  texts(): string[] {
    return this.nodes.filter((n) => n.role === 'StaticText').map((n) => (n.name ?? '').trim());
  }

  /** Does any element other than a form field show `text`? */
  shows(text: string): boolean {
    return this.nodes.some((n) => !FIELD_ROLES.has(n.role) && (n.name ?? '').includes(text));
  }

  /** Every link of the page (for mistakes). */
  links(): TreeNode[] {
    return this.nodes.filter((n) => n.role === 'link');
  }
}

/** The main navigation's link to a section, or a way back to a page that has it. */
export function toSection(page: StorePage, section: string): Move {
  const link = page.navLink('Main', section);
  if (link) return click(link, `open ${section} from the main menu`);
  return { action: 'go_back', reasoning: 'no main menu here; go back' };
}

/**
 * Signs in with the demo account the login page shows (username, then the password with Enter),
 * or undefined when this is not the login page.
 */
export function signIn(page: StorePage): Move | undefined {
  const user = page.field('Username');
  const password = page.field('Password');
  if (!user || !password || page.heading !== 'Sign in') return undefined;
  const demo = page
    .texts()
    .map((t) => /Demo account: (\S+) \/ (\S+)/.exec(t))
    .find((m) => m);
  if (!demo) return undefined;
  const [, name, secret] = demo as unknown as [string, string, string];
  if (StorePage.valueOf(user) !== name) return typeInto(user, name, false, 'enter the username');
  return typeInto(password, secret, true, 'enter the password and sign in');
}

export type Route = Move | 'arrived';

/** To the product page of the product with `sku` or `name`, through the product grid's search. */
export function toProduct(page: StorePage, ref: { sku?: string; name?: string }): Route {
  const key = (ref.sku ?? ref.name) as string;
  if (/^\/admin\/products\/\d+$/.test(page.path)) {
    if (ref.sku ? page.summary('SKU') === ref.sku : page.heading === ref.name) return 'arrived';
  }
  if (page.path === '/admin/products') {
    const row = page.rowWith(key);
    const link = row && page.links().find((l) => page.within(row.row).includes(l));
    if (link) return click(link, `open the product ${key} from the grid`);
    return searchOrPage(page, 'Search products', key);
  }
  return toSection(page, 'Products');
}

/** To the page of order `number`, through the order grid's search. */
export function toOrder(page: StorePage, number: string): Route {
  if (/^\/admin\/orders\/\d+$/.test(page.path) && page.heading === `Order #${number}`) {
    return 'arrived';
  }
  if (page.path === '/admin/orders') {
    const link = page.link(`#${number}`);
    if (link) return click(link, `open order #${number}`);
    return searchOrPage(page, 'Search orders', number);
  }
  return toSection(page, 'Orders');
}

/** To the page of the customer named `name`, through the customer grid's search. */
export function toCustomer(page: StorePage, name: string): Route {
  if (/^\/admin\/customers\/\d+$/.test(page.path) && page.heading === name) return 'arrived';
  if (page.path === '/admin/customers') {
    const link = page.link(name);
    if (link) return click(link, `open the customer ${name}`);
    return searchOrPage(page, 'Search customers', name);
  }
  return toSection(page, 'Customers');
}

/**
 * To the review `nickname` wrote about `product`, from the product page's review list. `missing`
 * when the product page lists no such review.
 */
export function toReview(page: StorePage, product: string, nickname: string): Route | 'missing' {
  if (
    /^\/admin\/reviews\/\d+$/.test(page.path) &&
    page.summary('Nickname') === nickname &&
    page.summary('Product') === product
  ) {
    return 'arrived';
  }
  const route = toProduct(page, { name: product });
  if (route !== 'arrived') return route;
  const link = reviewLink(page, nickname);
  return link ? click(link, `open the review by ${nickname}`) : 'missing';
}

/** On a product page: the review list's link whose byline (`by NAME, 4 of 5, Status`) names `nickname`. */
export function reviewLink(page: StorePage, nickname: string): TreeNode | undefined {
  const at = page.nodes.findIndex((n) => reviewByline(n, nickname));
  if (at < 0) return undefined;
  return page.nodes
    .slice(0, at)
    .reverse()
    .find((n) => n.role === 'link');
}

/** The byline of a review on a product page, if `node` is the one by `nickname`. */
export function reviewByline(node: TreeNode, nickname: string): RegExpExecArray | undefined {
  if (node.role !== 'StaticText') return undefined;
  const escaped = nickname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (
    new RegExp(`^by ${escaped}, (\\d) of 5, (\\w+)$`).exec((node.name ?? '').trim()) ?? undefined
  );
}

/** A grid's search for `key`, or the next page when the search was done and the row not shown. */
function searchOrPage(page: StorePage, label: string, key: string): Move {
  const box = page.field(label);
  if (box && StorePage.valueOf(box) !== key) return typeInto(box, key, true, `search for ${key}`);
  const next = page.link('Next page');
  if (next) return click(next, `${key} is not on this page; try the next one`);
  return { action: 'go_back', reasoning: `${key} is not listed; go back` };
}

/** To a report page (`Best sellers` or `Sales by month`) whose h2 reads `expected`. */
export function toReport(
  page: StorePage,
  report: { link: string; path: string },
  period: { year: string; month?: string },
  expected: string,
): Route {
  if (page.path === report.path) {
    const shown = page.nodes.filter((n) => n.role === 'heading').map((n) => n.name ?? '');
    if (shown.includes(expected)) return 'arrived';
    const heading = shown.find((h) => /\d{4}$/.test(h)) ?? '';
    if (!heading.endsWith(period.year)) {
      const year = page.navLink('Year', period.year);
      if (year) return click(year, `choose the year ${period.year}`);
    }
    const month = page.navLink('Month', period.month ?? 'Whole year');
    if (month) return click(month, `choose ${period.month ?? 'the whole year'}`);
    return toSection(page, 'Reports');
  }
  if (page.path === '/admin/reports') {
    const link = page.link(report.link);
    if (link) return click(link, `open the ${report.link} report`);
  }
  return toSection(page, 'Reports');
}
