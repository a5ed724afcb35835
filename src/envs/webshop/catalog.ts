/**
 * The `webshop` product catalog, generated from a seed out of the hand-written vocabulary.
 *
 * Product i comes from its own random stream, `new Rng(seed).fork('product', i)`, so it is the same
 * product whatever the catalog size: a 1,000-product catalog is the first 1,000 products of the
 * 100,000-product one with the same seed. Only ASINs look back at earlier products (to stay unique),
 * and earlier products do not depend on the size either.
 */
import { ConfigError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { CatalogId, OptionGroup, Product } from './types.ts';
import { CATEGORIES, type CategorySpec, optionPool, type ProductTypeSpec } from './vocabulary.ts';

/** Products in a catalog when the caller does not say: about WebShop's small 1k setting. */
export const DEFAULT_CATALOG_SIZE = 1000;

/** Generates the catalog `id` names. The same seed and size always give an equal array. */
export function generateCatalog({ seed, size }: CatalogId): Product[] {
  if (!Number.isInteger(size) || size < 0) {
    throw new ConfigError(`catalog size must be a whole number ≥ 0, got ${size}.`);
  }
  const root = new Rng(seed);
  const taken = new Set<string>();
  const products: Product[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const rng = root.fork('product', i);
    const product = generateProduct(rng);
    // Drawn last, so a collision's extra draws cannot change the product's other fields.
    product.asin = uniqueAsin(rng, taken);
    products[i] = product;
  }
  return products;
}

const catalogCache = new Map<string, readonly Product[]>();

/**
 * The catalog `id` names, generated once per process and shared: every env over the same catalog
 * sees the same array, which also lets search indexes keyed on the array be shared. Treat it as
 * read-only.
 */
export function getCatalog(id: CatalogId): readonly Product[] {
  const key = `${id.seed}:${id.size}`;
  let products = catalogCache.get(key);
  if (products === undefined) {
    products = generateCatalog(id);
    catalogCache.set(key, products);
  }
  return products;
}

const indexCache = new WeakMap<readonly Product[], ReadonlyMap<string, Product>>();

/** ASIN → product for a catalog array, built once per array. */
export function catalogIndex(products: readonly Product[]): ReadonlyMap<string, Product> {
  let index = indexCache.get(products);
  if (index === undefined) {
    index = new Map(products.map((product) => [product.asin, product]));
    indexCache.set(products, index);
  }
  return index;
}

const ASIN_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * `B0` + 8 letters or digits. A collision (about one in 3 trillion pairs) is resolved by drawing
 * again from the same stream, so the result depends only on the seed and earlier products.
 */
function uniqueAsin(rng: Rng, taken: Set<string>): string {
  for (;;) {
    let asin = 'B0';
    for (let k = 0; k < 8; k++) asin += ASIN_ALPHABET[rng.int(ASIN_ALPHABET.length)];
    if (!taken.has(asin)) {
      taken.add(asin);
      return asin;
    }
  }
}

/** Everything but a unique ASIN, which needs the rest of the catalog (left empty here). */
function generateProduct(rng: Rng): Product {
  const category = rng.pick(CATEGORIES);
  const type = rng.pick(category.productTypes);
  const brand = rng.pick(category.brands);
  const attributes = drawAttributes(rng, category, type);
  const options = drawOptions(rng, category, type);
  const blurbs = rng.shuffle([...(type.blurbs ?? []), ...category.blurbs]);
  const text = { brand, type: type.name, attributes, options };
  return {
    asin: '',
    category: category.key,
    categoryPath: [category.top, ...type.path],
    productType: type.name,
    brand,
    title: writeTitle(rng, text),
    price: drawPrice(rng, type.price),
    attributes,
    options,
    description: writeDescription(rng, text, blurbs),
    features: writeFeatures(rng, text, blurbs),
  };
}

/** Attribute counts 2..8, weighted towards 3–4: most listings show a handful, few a long list. */
const ATTRIBUTE_COUNTS = [2, 3, 4, 5, 6, 7, 8];
const ATTRIBUTE_COUNT_WEIGHTS = [2, 4, 4, 3, 2, 1, 1];

/**
 * 2–8 distinct attributes: first one to four of the type's own (they lead the title, as the
 * defining features do on real listings), then the category's. A phrase that contains or is
 * contained in one already chosen (`sensitive skin`, `safe for sensitive skin`) is skipped, so no
 * product lists the same thing twice.
 */
function drawAttributes(rng: Rng, category: CategorySpec, type: ProductTypeSpec): string[] {
  const count = rng.weighted(ATTRIBUTE_COUNTS, ATTRIBUTE_COUNT_WEIGHTS);
  const own = rng.shuffle(type.attributes).slice(0, rng.between(1, 4));
  const candidates = [...own, ...rng.shuffle(category.attributes)];
  const chosen: string[] = [];
  for (const attribute of candidates) {
    if (chosen.length === count) break;
    if (chosen.some((other) => other.includes(attribute) || attribute.includes(other))) continue;
    chosen.push(attribute);
  }
  return chosen;
}

/**
 * 0–3 of the type's option groups, in the type's display order, each with 2–6 values. Ordered
 * pools (sizes) give a contiguous run, as a real size chart does; others any few values.
 */
function drawOptions(rng: Rng, category: CategorySpec, type: ProductTypeSpec): OptionGroup[] {
  const names = type.options.slice(0, 3);
  if (names.length === 0 || rng.chance(0.12)) return [];
  const groupCount = rng.chance(0.6) ? names.length : rng.between(1, names.length);
  const picked = new Set(rng.sample(names, groupCount));
  const groups: OptionGroup[] = [];
  for (const name of names) {
    const pool = optionPool(category, type, name);
    if (!picked.has(name) || pool === undefined || pool.values.length < 2) continue;
    const count = rng.between(2, Math.min(6, pool.values.length));
    const values = pool.ordered
      ? contiguous(rng, pool.values, count)
      : rng.sample(pool.values, count);
    groups.push({ name, values });
  }
  return groups;
}

function contiguous(rng: Rng, values: readonly string[], count: number): string[] {
  const start = rng.int(values.length - count + 1);
  return values.slice(start, start + count);
}

/**
 * A log-normal spread around the type's typical price (σ = 0.4: most prices within ×0.55–×1.8),
 * ending mostly in .99 or .95 like shop prices do.
 */
function drawPrice(rng: Rng, median: number): number {
  const raw = Math.max(1, median * Math.exp(0.4 * standardNormal(rng)));
  const ending = rng.weighted(['99', '95', '49', '00', 'any'] as const, [55, 15, 8, 10, 12]);
  const dollars = Math.floor(raw);
  let price: number;
  if (ending === 'any') price = Math.round(raw * 100) / 100;
  else if (ending === '00') price = Math.max(1, Math.round(raw));
  else price = Math.max(0, dollars - 1) + Number(`0.${ending}`);
  return Number(Math.max(0.99, price).toFixed(2));
}

/** Box–Muller; `1 - float()` keeps the logarithm away from 0. */
function standardNormal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.float())) * Math.cos(2 * Math.PI * rng.float());
}

interface ProductText {
  brand: string;
  type: string;
  attributes: readonly string[];
  options: readonly OptionGroup[];
}

/** Option groups whose first value reads well at the front of a title: `Bright Citrus Deodorant`. */
const VARIANT_PREFIX_GROUPS: ReadonlySet<string> = new Set(['scent', 'flavor', 'color']);

/**
 * An Amazon-style title in one of five shapes, always containing the product type and one to three
 * attributes; several also name the listed variant (the first value of an option group), as real
 * listings do.
 */
function writeTitle(rng: Rng, { brand, type, attributes, options }: ProductText): string {
  const attrs = attributes.slice(0, rng.between(1, Math.min(3, attributes.length))).map(titleCase);
  const [first, ...rest] = attrs as [string, ...string[]];
  const Type = titleCase(type);
  const variants = options.slice(0, 2).map((group) => titleCase(group.values[0] as string));
  const inParens = variants.length > 0 ? ` (${variants.join(', ')})` : '';
  const prefixGroup = options.find((group) => VARIANT_PREFIX_GROUPS.has(group.name));
  const prefix = prefixGroup ? `${titleCase(prefixGroup.values[0] as string)} ` : '';

  switch (rng.int(5)) {
    case 0:
      return `${brand} ${first} ${Type}${rest.map((a) => `, ${a}`).join('')}${inParens}`;
    case 1: {
      const tail = rest.length > 0 ? `${first} and ${rest.join(', ')}` : first;
      return `${prefix}${Type} by ${brand} | ${tail}`;
    }
    case 2: {
      const second = rest[0] !== undefined ? `, ${rest[0]} ${Type}` : '';
      return `${brand} - ${first} ${Type}${second}${rest
        .slice(1)
        .map((a) => `, ${a}`)
        .join('')}${inParens}`;
    }
    case 3:
      return `${brand} ${Type} - ${[...attrs, ...variants].join(', ')}`;
    default:
      return `${brand} ${attrs.join(' ')} ${Type}${variants.length > 0 ? `, ${variants[0]}` : ''}`;
  }
}

/** One opening sentence naming one or two attributes, then up to two category blurbs. */
function writeDescription(
  rng: Rng,
  { brand, type, attributes }: ProductText,
  blurbs: readonly string[],
): string {
  const mentioned = joinAnd(rng.sample(attributes, rng.between(1, 2)));
  const openings = [
    `${brand} ${type} made with ${mentioned} in mind.`,
    `Meet the ${brand} ${type}, featuring ${mentioned}.`,
    `From ${brand}: ${type} with ${mentioned}.`,
    `${brand} brings you ${type} with ${mentioned} at a fair price.`,
    `Everything you want in ${type}: ${mentioned}, from ${brand}.`,
  ];
  const extra = blurbs.slice(0, rng.between(0, 2)).map((blurb) => fillBlurb(blurb, brand, type));
  const sentences = [rng.pick(openings), ...extra];
  return sentences.join(' ');
}

/** Bullet headers for bullets that carry no attribute. */
const PLAIN_HEADERS = [
  'WHAT YOU GET',
  'SATISFACTION GUARANTEED',
  'THOUGHTFUL DESIGN',
  'QUALITY YOU CAN TRUST',
  'EVERYDAY ESSENTIAL',
];

/**
 * 3–5 bullets in the `HEADER - sentence` style of Amazon listings. Every attribute appears in some
 * bullet (at most two per bullet), so the reward's text match finds each attribute a goal can ask
 * for. Blurbs already used by the description come after, so bullets repeat them only if needed.
 */
function writeFeatures(
  rng: Rng,
  { brand, type, attributes }: ProductText,
  blurbs: readonly string[],
): string[] {
  const bulletCount = Math.max(rng.between(3, 5), Math.ceil(attributes.length / 2));
  const order = rng.shuffle(attributes);
  const rotated = [...blurbs.slice(2), ...blurbs.slice(0, 2)];
  const headers = rng.shuffle(PLAIN_HEADERS);
  const bullets: string[] = [];
  for (let b = 0; b < bulletCount; b++) {
    const blurb = fillBlurb(rotated[b % rotated.length] as string, brand, type);
    const own = order.filter((_, k) => k % bulletCount === b);
    const [a, c] = own;
    if (a === undefined) {
      bullets.push(`${headers[b % headers.length]} - ${blurb}`);
    } else if (c !== undefined) {
      bullets.push(`${a.toUpperCase()} & ${c.toUpperCase()} - ${blurb}`);
    } else if (rng.chance(0.3)) {
      bullets.push(`${capitalize(a)} ${type} - ${blurb}`);
    } else {
      bullets.push(`${a.toUpperCase()}: ${blurb}`);
    }
  }
  return bullets;
}

function fillBlurb(blurb: string, brand: string, type: string): string {
  if (!blurb.includes('{')) return blurb;
  return blurb.replaceAll('{brand}', brand).replaceAll('{type}', type);
}

function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Words kept lower-case inside a title, as Amazon titles mostly do. */
const SMALL_WORDS: ReadonlySet<string> = new Set(['and', 'or', 'for', 'with', 'of', 'the', 'in']);

/** Abbreviations written in capitals in titles. */
const ACRONYMS: Readonly<Record<string, string>> = {
  usb: 'USB',
  hdmi: 'HDMI',
  led: 'LED',
  bpa: 'BPA',
  gmo: 'GMO',
  usda: 'USDA',
  spf: 'SPF',
  tv: 'TV',
  usa: 'USA',
  rgb: 'RGB',
  hd: 'HD',
  stem: 'STEM',
  tpe: 'TPE',
  pfoa: 'PFOA',
  he: 'HE',
  wifi: 'WiFi',
};

const titleCaseCache = new Map<string, string>();

/**
 * `x-large usb c charger` → `X-Large USB C Charger`. Memoised: titles are built from a few
 * thousand vocabulary phrases, and re-casing them for every product was a tenth of generation time.
 */
function titleCase(phrase: string): string {
  let cased = titleCaseCache.get(phrase);
  if (cased === undefined) {
    cased = phrase.split(' ').map(titleCaseWord).join(' ');
    titleCaseCache.set(phrase, cased);
  }
  return cased;
}

function titleCaseWord(word: string, position: number): string {
  const acronym = ACRONYMS[word];
  if (acronym !== undefined) return acronym;
  if (position > 0 && SMALL_WORDS.has(word)) return word;
  // Size prefixes stay capitals: `xx-small` → `XX-Small`, `3x-large` → `3X-Large`.
  const sized = /^(\d*x+)-(.*)$/.exec(word);
  if (sized) return `${(sized[1] as string).toUpperCase()}-${capitalize(sized[2] as string)}`;
  return word.replace(
    /(^|[-(])([a-z])/g,
    (_, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
}
