import type { Product } from './types.ts';

/**
 * WebShop's text-mode pages. Each renderer returns the page text and the admissible actions on
 * it; buttons appear as `[Label]` in the text and as `click[Label]` in the actions.
 */
export interface Page {
  text: string;
  actions: string[];
}

export const SEARCH_ACTION = 'search[<query>]';

export const BUTTONS = {
  backToSearch: 'Back to Search',
  next: 'Next >',
  prev: '< Prev',
  description: 'Description',
  features: 'Features',
  buyNow: 'Buy Now',
} as const;

const click = (label: string) => `click[${label}]`;

export function formatPrice(price: number): string {
  return `$${price.toFixed(2)}`;
}

export function searchPage(instruction: string): Page {
  return {
    text: `WebShop\nInstruction:\n${instruction}\n[Search]`,
    actions: [SEARCH_ACTION],
  };
}

export function resultsPage(
  results: readonly Product[],
  page: number,
  totalResults: number,
  pageCount: number,
): Page {
  const lines = [`[${BUTTONS.backToSearch}]`, `Page ${page} (Total results: ${totalResults})`];
  const actions = [click(BUTTONS.backToSearch)];
  if (page > 1) {
    lines.push(`[${BUTTONS.prev}]`);
    actions.push(click(BUTTONS.prev));
  }
  if (page < pageCount) {
    lines.push(`[${BUTTONS.next}]`);
    actions.push(click(BUTTONS.next));
  }
  for (const product of results) {
    lines.push(`[${product.asin}]`, product.title, formatPrice(product.price));
    actions.push(click(product.asin));
  }
  return { text: lines.join('\n'), actions };
}

export function itemPage(product: Product, prefix?: string): Page {
  const lines = [`[${BUTTONS.backToSearch}]`, `[${BUTTONS.prev}]`];
  const actions = [click(BUTTONS.backToSearch), click(BUTTONS.prev)];
  for (const group of product.options) {
    lines.push(`${group.name} ${group.values.map((v) => `[${v}]`).join('')}`);
    for (const value of group.values) actions.push(click(value));
  }
  lines.push(
    product.title,
    `Price: ${formatPrice(product.price)}`,
    'Rating: N.A.',
    `[${BUTTONS.description}]`,
    `[${BUTTONS.features}]`,
    `[${BUTTONS.buyNow}]`,
  );
  actions.push(click(BUTTONS.description), click(BUTTONS.features), click(BUTTONS.buyNow));
  const text = lines.join('\n');
  return { text: prefix ? `${prefix}\n${text}` : text, actions };
}

export function detailPage(body: string): Page {
  return {
    text: `[${BUTTONS.backToSearch}]\n[${BUTTONS.prev}]\n${body}`,
    actions: [click(BUTTONS.backToSearch), click(BUTTONS.prev)],
  };
}

export function donePage(reward: number): Page {
  return {
    text: `Thank you for shopping with us!\nYour score (min 0.0, max 1.0): ${reward.toFixed(4)}`,
    actions: [],
  };
}
