/**
 * WebShop's public text-mode page grammar, as anyone who reads WebShop pages knows it: how each
 * page is laid out and which buttons it offers. Written here independently of the real env's
 * code (the LLM-free experience model must not import it); both follow the same public format.
 */

/** A results page lists at most this many products. */
export const RESULTS_PER_PAGE = 10;

export interface ResultRow {
  asin: string;
  title: string;
  price: string;
}

export interface ItemView {
  asin: string;
  title: string;
  price: string;
  options: Array<{ name: string; values: string[] }>;
}

export type Page =
  | { kind: 'search' }
  | {
      kind: 'results';
      page: number;
      total: number;
      hasPrev: boolean;
      hasNext: boolean;
      rows: ResultRow[];
    }
  | { kind: 'item'; item: Omit<ItemView, 'asin'>; clicked?: string }
  | { kind: 'detail'; body: string }
  | { kind: 'done' }
  | { kind: 'unknown' };

const click = (label: string) => `click[${label}]`;

export function renderSearch(instruction: string): { text: string; actions: string[] } {
  return { text: `WebShop\nInstruction:\n${instruction}\n[Search]`, actions: ['search[<query>]'] };
}

export function renderResults(
  page: number,
  total: number,
  rows: readonly ResultRow[],
): { text: string; actions: string[] } {
  const pages = Math.max(1, Math.ceil(total / RESULTS_PER_PAGE));
  const lines = ['[Back to Search]', `Page ${page} (Total results: ${total})`];
  const actions = [click('Back to Search')];
  if (page > 1) {
    lines.push('[< Prev]');
    actions.push(click('< Prev'));
  }
  if (page < pages) {
    lines.push('[Next >]');
    actions.push(click('Next >'));
  }
  for (const row of rows) {
    lines.push(`[${row.asin}]`, row.title, row.price);
    actions.push(click(row.asin));
  }
  return { text: lines.join('\n'), actions };
}

export function renderItem(
  item: Omit<ItemView, 'asin'>,
  clicked?: string,
): { text: string; actions: string[] } {
  const lines = ['[Back to Search]', '[< Prev]'];
  const actions = [click('Back to Search'), click('< Prev')];
  for (const group of item.options) {
    lines.push(`${group.name} ${group.values.map((v) => `[${v}]`).join('')}`);
    actions.push(...group.values.map(click));
  }
  lines.push(
    item.title,
    `Price: ${item.price}`,
    'Rating: N.A.',
    '[Description]',
    '[Features]',
    '[Buy Now]',
  );
  actions.push(click('Description'), click('Features'), click('Buy Now'));
  const text = lines.join('\n');
  return { text: clicked ? `You have clicked ${clicked}.\n${text}` : text, actions };
}

export function renderDetail(body: string): { text: string; actions: string[] } {
  return {
    text: `[Back to Search]\n[< Prev]\n${body}`,
    actions: [click('Back to Search'), click('< Prev')],
  };
}

export function renderDone(reward: number): { text: string; actions: string[] } {
  return {
    text: `Thank you for shopping with us!\nYour score (min 0.0, max 1.0): ${reward.toFixed(4)}`,
    actions: [],
  };
}

const ASIN = /^\[([A-Z0-9]{10})\]$/i;

/** Reads a page back into its parts; `unknown` for text that follows no WebShop layout. */
export function parsePage(text: string): Page {
  const lines = text.split('\n');
  if (lines.at(-1) === '[Search]') return { kind: 'search' };
  if (lines[0]?.startsWith('Thank you for shopping')) return { kind: 'done' };
  let clicked: string | undefined;
  if (lines[0]?.startsWith('You have clicked '))
    clicked = (lines.shift() as string).slice(17).replace(/\.$/, '');
  if (lines[0] !== '[Back to Search]') return { kind: 'unknown' };
  const header = /^Page (\d+) \(Total results: (\d+)\)$/.exec(lines[1] ?? '');
  if (header) {
    const rows: ResultRow[] = [];
    for (let i = 2; i < lines.length; i++) {
      const asin = ASIN.exec(lines[i] as string)?.[1];
      if (asin && lines[i + 2]?.startsWith('$')) {
        rows.push({ asin, title: lines[i + 1] as string, price: lines[i + 2] as string });
        i += 2;
      }
    }
    return {
      kind: 'results',
      page: Number(header[1]),
      total: Number(header[2]),
      hasPrev: lines.includes('[< Prev]'),
      hasNext: lines.includes('[Next >]'),
      rows,
    };
  }
  if (lines.at(-1) === '[Buy Now]') {
    const priceAt = lines.findIndex((l) => l.startsWith('Price: '));
    const options = lines.slice(2, priceAt - 1).map((line) => {
      const name = line.slice(0, line.indexOf(' ['));
      return { name, values: [...line.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] as string) };
    });
    const item = {
      title: lines[priceAt - 1] ?? '',
      price: (lines[priceAt] ?? '').slice(7),
      options,
    };
    return clicked === undefined ? { kind: 'item', item } : { kind: 'item', item, clicked };
  }
  if (lines[1] === '[< Prev]') return { kind: 'detail', body: lines.slice(2).join('\n') };
  return { kind: 'unknown' };
}

const BUTTON_LABELS = ['Back to Search', 'Next >', '< Prev', 'Description', 'Features', 'Buy Now'];

/** A result's ASIN as a label: `B0` and eight letters or digits. */
export function isAsin(label: string): boolean {
  return /^b0[a-z0-9]{8}$/i.test(label);
}

/**
 * The label of a `click[label]` action, or undefined. Clicks match case-insensitively, as in
 * WebShop (AgentGym's clients send them lower-cased): buttons come back in their page spelling
 * and ASINs upper-cased.
 */
export function clickLabel(action: string): string | undefined {
  const raw = /^\s*click\s*\[(.*)\]\s*$/is.exec(action)?.[1]?.trim();
  if (raw === undefined) return undefined;
  const button = BUTTON_LABELS.find((b) => b.toLowerCase() === raw.toLowerCase());
  if (button) return button;
  return isAsin(raw) ? raw.toUpperCase() : raw;
}

/** The query of a `search[query]` action, or undefined. */
export function searchQuery(action: string): string | undefined {
  return /^\s*search\s*\[(.*)\]\s*$/is.exec(action)?.[1]?.trim();
}
