import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { catalogIndex, DEFAULT_CATALOG_SIZE, generateCatalog, getCatalog } from './catalog.ts';
import type { Product } from './types.ts';
import { CATEGORIES, optionPool } from './vocabulary.ts';

const catalog = generateCatalog({ seed: 7, size: DEFAULT_CATALOG_SIZE });

/** The text the reward searches for attributes: title, description and features, lower-cased. */
function pageText(product: Product): string {
  return [product.title, product.description, ...product.features].join(' ').toLowerCase();
}

describe('generateCatalog', () => {
  it('gives an equal catalog for the same seed and size, and a different one for another seed', () => {
    expect(generateCatalog({ seed: 7, size: 300 })).toEqual(
      generateCatalog({ seed: 7, size: 300 }),
    );
    const other = generateCatalog({ seed: 8, size: 300 });
    const same = other.filter((p, i) => p.title === catalog[i]?.title).length;
    expect(same).toBeLessThan(10);
    expect(other.map((p) => p.asin)).not.toEqual(catalog.slice(0, 300).map((p) => p.asin));
  });

  it('keeps product i the same whatever the catalog size', () => {
    const small = generateCatalog({ seed: 7, size: 50 });
    expect(small).toEqual(catalog.slice(0, 50));
  });

  it('covers most categories in a default-size catalog', () => {
    const categories = new Set(catalog.map((p) => p.category));
    expect(categories.size).toBeGreaterThanOrEqual(8);
    expect(new Set(catalog.map((p) => p.productType)).size).toBeGreaterThan(80);
  });

  it('gives each product 2–8 distinct lower-case attributes that its page text mentions', () => {
    for (const product of catalog) {
      expect(product.attributes.length).toBeGreaterThanOrEqual(2);
      expect(product.attributes.length).toBeLessThanOrEqual(8);
      expect(new Set(product.attributes).size).toBe(product.attributes.length);
      const text = pageText(product);
      for (const attribute of product.attributes) {
        expect(attribute).toBe(attribute.toLowerCase());
        expect(text).toContain(attribute);
      }
    }
  });

  it('gives each product 0–3 option groups with distinct names and 2–6 distinct values', () => {
    const groupCounts = new Set<number>();
    for (const product of catalog) {
      groupCounts.add(product.options.length);
      expect(product.options.length).toBeLessThanOrEqual(3);
      const names = product.options.map((group) => group.name);
      expect(new Set(names).size).toBe(names.length);
      for (const group of product.options) {
        expect(group.values.length).toBeGreaterThanOrEqual(2);
        expect(group.values.length).toBeLessThanOrEqual(6);
        expect(new Set(group.values).size).toBe(group.values.length);
        for (const value of group.values) {
          expect(value).toBe(value.toLowerCase());
          expect(value).not.toMatch(/[[\]]/);
        }
      }
    }
    expect([...groupCounts].sort()).toEqual([0, 1, 2, 3]);
  });

  it('keeps ordered option pools (sizes) in chart order', () => {
    const sized = catalog.filter((p) => p.category === 'clothing' && p.options[0]?.name === 'size');
    expect(sized.length).toBeGreaterThan(10);
    const chart = [
      'xx-small',
      'x-small',
      'small',
      'medium',
      'large',
      'x-large',
      'xx-large',
      '3x-large',
    ];
    for (const product of sized) {
      if (product.productType === 'slim jeans') continue;
      const positions = (product.options[0]?.values ?? []).map((v) => chart.indexOf(v));
      const first = positions[0] ?? -1;
      expect(first).toBeGreaterThanOrEqual(0);
      expect(positions).toEqual(positions.map((_, k) => first + k));
    }
  });

  it('writes titles that contain the product type, an attribute and the brand', () => {
    for (const product of catalog) {
      const title = product.title.toLowerCase();
      expect(title).toContain(product.productType);
      expect(product.title).toContain(product.brand);
      expect(product.attributes.some((a) => title.includes(a))).toBe(true);
    }
    const shapes = new Set(
      catalog.map((p) => (p.title.includes(' by ') ? 'by' : p.title.split(' ')[0])),
    );
    expect(shapes.size).toBeGreaterThan(2);
  });

  it('writes a short description and 3–5 feature bullets', () => {
    for (const product of catalog) {
      expect(product.description.length).toBeGreaterThan(20);
      expect(product.description.split(/(?<=\.) /).length).toBeLessThanOrEqual(3);
      expect(product.features.length).toBeGreaterThanOrEqual(3);
      expect(product.features.length).toBeLessThanOrEqual(5);
      expect(product.description).not.toMatch(/[{}]/);
      for (const feature of product.features) expect(feature).not.toMatch(/[{}]/);
    }
  });

  it('prices every product positively, in cents, spread around its type', () => {
    for (const product of catalog) {
      expect(product.price).toBeGreaterThan(0);
      expect(Math.round(product.price * 100) / 100).toBe(product.price);
    }
    const tees = catalog.filter((p) => p.productType === "men's t-shirt").map((p) => p.price);
    const tables = catalog.filter((p) => p.productType === 'dining table').map((p) => p.price);
    expect(new Set(tees).size).toBeGreaterThan(1);
    expect(median(tables)).toBeGreaterThan(5 * median(tees));
  });

  it('gives unique, well-formed ASINs at 10,000 products', () => {
    const big = generateCatalog({ seed: 3, size: 10_000 });
    const asins = big.map((p) => p.asin);
    expect(new Set(asins).size).toBe(asins.length);
    for (const asin of asins) expect(asin).toMatch(/^B0[0-9A-Z]{8}$/);
  });

  it('refuses a size that is not a whole number ≥ 0', () => {
    expect(() => generateCatalog({ seed: 0, size: -1 })).toThrow(ConfigError);
    expect(() => generateCatalog({ seed: 0, size: 2.5 })).toThrow(ConfigError);
    expect(generateCatalog({ seed: 0, size: 0 })).toEqual([]);
  });
});

describe('getCatalog and catalogIndex', () => {
  it('shares one array per seed and size', () => {
    const a = getCatalog({ seed: 11, size: 40 });
    expect(getCatalog({ seed: 11, size: 40 })).toBe(a);
    expect(getCatalog({ seed: 11, size: 41 })).not.toBe(a);
    expect(a).toEqual(generateCatalog({ seed: 11, size: 40 }));
  });

  it('looks products up by ASIN', () => {
    const index = catalogIndex(catalog);
    expect(index.size).toBe(catalog.length);
    const product = catalog[123] as Product;
    expect(index.get(product.asin)).toBe(product);
    expect(catalogIndex(catalog)).toBe(index);
  });
});

describe('vocabulary', () => {
  it('has at least 10 categories with unique keys and globally unique product types', () => {
    expect(CATEGORIES.length).toBeGreaterThanOrEqual(10);
    expect(new Set(CATEGORIES.map((c) => c.key)).size).toBe(CATEGORIES.length);
    const types = CATEGORIES.flatMap((c) => c.productTypes.map((t) => t.name));
    expect(new Set(types).size).toBe(types.length);
  });

  it('gives every category at least 15 lower-case attributes and enough brands', () => {
    for (const category of CATEGORIES) {
      const attributes = new Set([
        ...category.attributes,
        ...category.productTypes.flatMap((t) => t.attributes),
      ]);
      expect(attributes.size, category.key).toBeGreaterThanOrEqual(15);
      for (const attribute of attributes) expect(attribute).toMatch(/^[a-z0-9][a-z0-9 %./'&-]*$/);
      expect(category.brands.length).toBeGreaterThanOrEqual(8);
    }
  });

  it('resolves every option group a type names to a pool of 2+ lower-case values', () => {
    for (const category of CATEGORIES) {
      for (const type of category.productTypes) {
        expect(type.name).toBe(type.name.toLowerCase());
        for (const name of type.options) {
          const values = optionPool(category, type, name)?.values ?? [];
          expect(values.length, `${type.name}/${name}`).toBeGreaterThanOrEqual(2);
          for (const value of values) expect(value).toBe(value.toLowerCase());
        }
      }
    }
  });

  it('uses only the {brand} and {type} placeholders in blurbs', () => {
    for (const category of CATEGORIES) {
      const blurbs = [...category.blurbs, ...category.productTypes.flatMap((t) => t.blurbs ?? [])];
      for (const blurb of blurbs) {
        expect(blurb.replaceAll('{brand}', '').replaceAll('{type}', '')).not.toMatch(/[{}]/);
      }
    }
  });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
