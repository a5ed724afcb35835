import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.ts';
import { getCatalog } from './catalog.ts';
import { webshopSpec, webshopTasks } from './goals.ts';
import { CatalogSearch, normalizeTerm, searchTerms } from './search.ts';

describe('search terms', () => {
  it('lower-cases, drops stopwords and strips plural s', () => {
    expect(searchTerms('I need Running Shoes for men, and price lower than 40.00 dollars')).toEqual(
      ['running', 'shoe', 'men', '40', '00'],
    );
    expect(normalizeTerm('glass')).toBe('glass');
    expect(normalizeTerm('the')).toBeNull();
  });
});

describe('Bm25Index', () => {
  const docs = [
    { title: 'red running shoe', body: 'light and fast' },
    { title: 'blue running shoe', body: 'red laces' },
    { title: 'coffee maker', body: 'brews red coffee' },
    { title: 'green tea', body: 'loose leaf tea' },
  ];
  const index = new Bm25Index(docs, { title: 2, body: 1 }, searchTerms);

  it('matches any term, ranks documents with more and rarer matches first', () => {
    expect(index.search('red running shoe', 10)).toEqual([0, 1, 2]);
    expect(index.search('tea', 10)).toEqual([3]);
  });

  it('weights fields: a title match beats a body match', () => {
    expect(index.search('red', 10)[0]).toBe(0);
  });

  it('returns nothing for empty or unknown queries and honours the limit', () => {
    expect(index.search('', 10)).toEqual([]);
    expect(index.search('xyzzy', 10)).toEqual([]);
    expect(index.search('red', 2)).toHaveLength(2);
  });

  it('gives identical answers to repeated queries (scores are reset between queries)', () => {
    const first = index.search('running', 10);
    index.search('red coffee', 10);
    expect(index.search('running', 10)).toEqual(first);
  });

  it('orders ties by document index', () => {
    const twins = new Bm25Index(
      [{ t: 'lamp' }, { t: 'lamp' }, { t: 'lamp' }],
      { t: 1 },
      searchTerms,
    );
    expect(twins.search('lamp', 3)).toEqual([0, 1, 2]);
  });
});

describe('CatalogSearch', () => {
  const catalog = { seed: 0, size: 1000 };
  const products = getCatalog(catalog);
  const search = new CatalogSearch(products);

  it('finds a product first when searched by its exact title', () => {
    for (const i of [0, 17, 345, 999]) {
      const product = products[i];
      if (!product) throw new Error('missing product');
      const first = products[search.search(product.title, 1)[0] as number];
      expect(first?.title).toBe(product.title);
    }
  });

  it("finds the goal's target in the top 50 for most attribute + type queries", () => {
    const tasks = webshopTasks(catalog, products, 'test', 200);
    let found = 0;
    for (const task of tasks) {
      const { goal } = webshopSpec(task);
      const hits = search.search([...goal.attributes, goal.productType].join(' '), 50);
      if (hits.some((i) => products[i]?.asin === goal.asin)) found++;
    }
    expect(found / tasks.length).toBeGreaterThan(0.9);
  });
});
