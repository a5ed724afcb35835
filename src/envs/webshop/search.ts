import MiniSearch from 'minisearch';
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
 * Index terms: lower-cased, stopwords dropped, a plural `s` stripped so that `shoes` finds
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

interface SearchDocument {
  id: number;
  title: string;
  productType: string;
  attributes: string;
  description: string;
}

/**
 * BM25 full-text search over the catalog's titles, product types, attributes and descriptions
 * (MiniSearch's BM25+ ranking). Results are product indices into the catalog array, best first.
 */
export class CatalogSearch {
  private readonly index: MiniSearch<SearchDocument>;

  constructor(products: readonly Product[]) {
    this.index = new MiniSearch<SearchDocument>({
      fields: ['title', 'productType', 'attributes', 'description'],
      storeFields: [],
      processTerm: normalizeTerm,
      searchOptions: {
        boost: { title: 2, productType: 2, attributes: 1.5 },
        combineWith: 'OR',
      },
    });
    this.index.addAll(
      products.map((p, id) => ({
        id,
        title: p.title,
        productType: p.productType,
        attributes: p.attributes.join(' ; '),
        description: p.description,
      })),
    );
  }

  /** Indices of the best `limit` products for a free-text query; empty for an empty query. */
  search(query: string, limit = MAX_RESULTS): number[] {
    const hits = this.index.search(query);
    const out: number[] = [];
    for (const hit of hits) {
      if (out.length >= limit) break;
      out.push(hit.id as number);
    }
    return out;
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
