import { Bm25Index } from './bm25.ts';
import type { Product } from './types.ts';

/** WebShop shows at most 50 results for a query, 10 per page. */
export const MAX_RESULTS = 50;
export const RESULTS_PER_PAGE = 10;

const STOPWORDS = new Set(
  (
    'a an and are as at be but by for from has have i in is it its looking me my need of on or ' +
    'that the this to under want was were what which with would like find please price lower ' +
    'than dollars dollar less'
  ).split(' '),
);

/**
 * Normalises one word: lower-cased, stopwords dropped, a plural `s` stripped so that `shoes` finds
 * `shoe` (a light stand-in for the Porter stemmer of WebShop's Lucene index).
 */
export function normalizeTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length === 0 || STOPWORDS.has(lower)) return null;
  if (lower.length > 3 && lower.endsWith('s') && !/(ss|us|is)$/.test(lower)) {
    return lower.slice(0, -1);
  }
  return lower;
}

/** Index terms of a text: words and numbers, normalised by {@link normalizeTerm}. */
export function searchTerms(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+/u)) {
    const term = normalizeTerm(word);
    if (term) out.push(term);
  }
  return out;
}

/** Field weights: a word in the title or product type counts twice one in the description. */
const FIELD_WEIGHTS = { title: 2, productType: 2, attributes: 1.5, description: 1 };

/**
 * BM25 full-text search over the catalog's titles, product types, attributes and descriptions.
 * Results are product indices into the catalog array, best first.
 */
export class CatalogSearch {
  private readonly index: Bm25Index;

  constructor(products: readonly Product[]) {
    const documents = products.map((p) => ({
      title: p.title,
      productType: p.productType,
      attributes: p.attributes.join(' ; '),
      description: p.description,
    }));
    this.index = new Bm25Index(documents, FIELD_WEIGHTS, searchTerms);
  }

  /** Indices of the best `limit` products for a free-text query; empty for an empty query. */
  search(query: string, limit = MAX_RESULTS): number[] {
    return this.index.search(query, limit);
  }
}
const shared = new WeakMap<readonly Product[], CatalogSearch>();

/** One search index per catalog array, built on first use and shared by all envs over it. */
export function catalogSearch(products: readonly Product[]): CatalogSearch {
  let index = shared.get(products);
  if (!index) {
    index = new CatalogSearch(products);
    shared.set(products, index);
  }
  return index;
}
