/**
 * Shopping goals and the seeded `webshop` task splits.
 *
 * A goal is built, as in WebShop, from a target product: one to three of its attributes, one value
 * of (most of) its option groups, and a budget above its price. The instruction quotes every wanted
 * attribute and option value verbatim, because the reward and the scripted expert look for them by
 * string; only the sentence around them varies.
 *
 * Task i of a catalog is always the same goal (`new Rng(seed).fork('goal', i)`). As in WebShop, the
 * first {@link TEST_TASK_COUNT} indices are the test split and the rest train, so the splits never
 * share a task and asking for more tasks never changes the ones already drawn.
 */

import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSplit } from '../env.ts';
import type { CatalogId, Goal, Product, WebShopTaskSpec } from './types.ts';

/** Task indices [0, TEST_TASK_COUNT) are the test split; WebShop also holds out 500 goals. */
export const TEST_TASK_COUNT = 500;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_TRAIN_TASK_COUNT = 1000;

/** How likely a goal asks for a value of each of the target's option groups. */
const OPTION_WANTED_PROBABILITY = 0.85;

/** Draws one shopping goal from `products` (which must not be empty). */
export function generateGoal(products: readonly Product[], rng: Rng): Goal {
  if (products.length === 0) {
    throw new ConfigError('cannot draw a goal from an empty catalog: generate at least 1 product.');
  }
  const target = products[rng.int(products.length)] as Product;
  const attributes = wantedAttributes(rng, target);
  const options: Record<string, string> = {};
  for (const group of target.options) {
    if (rng.chance(OPTION_WANTED_PROBABILITY)) options[group.name] = rng.pick(group.values);
  }
  const priceUpper = budgetAbove(target.price * (1.1 + 1.4 * rng.float()));
  return {
    asin: target.asin,
    category: target.category,
    categoryPath: [...target.categoryPath],
    productType: target.productType,
    name: target.title,
    attributes,
    options,
    priceUpper,
    instruction: writeInstruction(rng, target.productType, attributes, options, priceUpper),
  };
}

/** Task `index` of the catalog `catalog` names; `products` must be that catalog. */
export function webshopTask(catalog: CatalogId, products: readonly Product[], index: number): Task {
  if (products.length !== catalog.size) {
    throw new ConfigError(
      `webshop task: got ${products.length} products for a catalog of size ${catalog.size}; pass getCatalog(catalog).`,
    );
  }
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`webshop task index must be a whole number ≥ 0, got ${index}.`);
  }
  const goal = generateGoal(products, new Rng(catalog.seed).fork('goal', index));
  const spec: WebShopTaskSpec = { catalog: { seed: catalog.seed, size: catalog.size }, goal };
  return {
    id: `webshop/${catalog.seed}-${catalog.size}/${index}`,
    env: 'webshop',
    instruction: goal.instruction,
    spec: { ...spec },
    origin: 'seed',
  };
}

/**
 * The first `count` tasks of a split: test is indices 0..count-1 (default all
 * {@link TEST_TASK_COUNT}), train is indices TEST_TASK_COUNT.. (default
 * {@link DEFAULT_TRAIN_TASK_COUNT}).
 */
export function webshopTasks(
  catalog: CatalogId,
  products: readonly Product[],
  split: TaskSplit,
  count?: number,
): Task[] {
  const wanted = count ?? (split === 'test' ? TEST_TASK_COUNT : DEFAULT_TRAIN_TASK_COUNT);
  if (split === 'test' && wanted > TEST_TASK_COUNT) {
    throw new ConfigError(
      `the webshop test split has ${TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
    );
  }
  const first = split === 'test' ? 0 : TEST_TASK_COUNT;
  return Array.from({ length: wanted }, (_, k) => webshopTask(catalog, products, first + k));
}

/**
 * One to three of the target's attributes, favouring those its title or description shows (as
 * WebShop's goals favour attributes mined from the page text) three to one over feature-only ones.
 */
function wantedAttributes(rng: Rng, target: Product): string[] {
  const count = Math.min(target.attributes.length, rng.weighted([1, 2, 3], [3, 4, 3]));
  const shown = `${target.title} ${target.description}`.toLowerCase();
  const pool = [...target.attributes];
  const weights = pool.map((attribute) => (shown.includes(attribute) ? 3 : 1));
  const chosen: string[] = [];
  while (chosen.length < count) {
    const k = rng.weighted(
      pool.map((_, i) => i),
      weights,
    );
    chosen.push(pool[k] as string);
    pool.splice(k, 1);
    weights.splice(k, 1);
  }
  return chosen;
}

/**
 * The webshop spec of a task (its catalog and goal), or a {@link TaskError} saying why the task
 * cannot run in the real webshop (another env, or a generated task without a spec).
 */
export function webshopSpec(task: Task): WebShopTaskSpec {
  if (task.env !== 'webshop') {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "webshop".`);
  }
  const spec = task.spec as Partial<WebShopTaskSpec> | undefined;
  if (!spec?.goal || !spec.catalog) {
    throw new TaskError(
      `task ${task.id} has no webshop spec (catalog and goal); a generated task without a spec can only run in a synthetic env.`,
    );
  }
  return spec as WebShopTaskSpec;
}

/**
 * A round budget above `amount`: to the next 10 dollars under 200, the next 50 under 1,000, else
 * the next 100 — the round numbers WebShop's goals use (`lower than 40.00 dollars`).
 */
export function budgetAbove(amount: number): number {
  const step = amount < 200 ? 10 : amount < 1000 ? 50 : 100;
  return Math.ceil(amount / step) * step;
}

const OPENERS = [
  'i am looking for',
  "i'm looking for",
  'i want',
  'i need',
  'find me',
  'i would like',
  'looking for',
  'can you find me',
  'please find me',
  'get me',
  'i want to buy',
  'i need to buy',
  'search for',
  'show me',
];
const OPENER_WEIGHTS = [6, 2, 5, 5, 3, 4, 2, 1, 1, 1, 2, 1, 1, 1];

/** How the budget is stated; WebShop's own phrasing comes first and most often. */
const PRICE_PHRASES = [
  ', and price lower than {p} dollars',
  ' and price lower than {p} dollars',
  ' under {p} dollars',
  ' for less than {p} dollars',
  ', priced under {p} dollars',
  ' that costs less than {p} dollars',
  ', and the price should be lower than {p} dollars',
  ', my budget is {p} dollars',
];
const PRICE_WEIGHTS = [8, 2, 3, 2, 1, 1, 1, 1];

/**
 * `i am looking for a gluten free and non gmo granola in honey roasted flavor, and price lower
 * than 30.00 dollars`. Every attribute and option value appears verbatim; the product type does too.
 */
function writeInstruction(
  rng: Rng,
  productType: string,
  attributes: readonly string[],
  options: Readonly<Record<string, string>>,
  priceUpper: number,
): string {
  const opener = rng.weighted(OPENERS, OPENER_WEIGHTS);
  const thing = describeThing(rng, productType, attributes);
  const optionPhrases = Object.entries(options).map(([group, value]) =>
    optionPhrase(rng, group, value),
  );
  const optionsPart = optionPhrases.length > 0 ? ` ${joinAnd(optionPhrases)}` : '';
  const price = rng.weighted(PRICE_PHRASES, PRICE_WEIGHTS).replace('{p}', priceUpper.toFixed(2));
  return `${opener} ${thing}${optionsPart}${price}`;
}

/** The product type with its wanted attributes, in one of four word orders. */
function describeThing(rng: Rng, type: string, attributes: readonly string[]): string {
  const plural = isPlural(type);
  const [first, ...rest] = attributes;
  if (first === undefined) return `${article(type, plural)}${type}`;
  switch (rng.weighted([0, 1, 2, 3], [4, 2, 2, rest.length > 0 ? 2 : 0])) {
    case 0:
      return `${article(first, plural)}${joinAnd(attributes)} ${type}`;
    case 1:
      return `${article(type, plural)}${type} with ${joinAnd(attributes)}`;
    case 2:
      return `${article(type, plural)}${type} that ${plural ? 'are' : 'is'} ${joinAnd(attributes)}`;
    default:
      return `${article(first, plural)}${first} ${type} with ${joinAnd(rest)}`;
  }
}

/** Ways to ask for an option value, by group name; `{v}` is the value, quoted verbatim. */
const OPTION_PHRASES: Readonly<Record<string, readonly string[]>> = {
  color: ['in {v} color', 'in {v}', 'in the color {v}'],
  scent: ['with {v} scent', 'in {v} scent', 'in the {v} scent'],
  flavor: ['in {v} flavor', 'with {v} flavor', '{v} flavored'],
  fit: ['in {v} fit', 'with a {v} fit'],
  width: ['in {v} width', 'with {v} width'],
  length: ['{v} long', 'in {v} length'],
  capacity: ['with {v} capacity', 'in the {v} size'],
  weight: ['in {v}', 'weighing {v}'],
  pieces: ['with {v}', 'in the {v} version'],
};

/** Letter and shoe sizes read as `in x-large size`; sizes with units as `in the 3 ounce size`. */
const LETTER_SIZE_PHRASES = ['in {v} size', 'size {v}', 'in size {v}'];
const MEASURED_SIZE_PHRASES = ['in {v} size', 'in the {v} size', 'in {v}'];
/** Counts and packs: `in a pack of 6`, `in the 240 count pack`, `2 pack`. */
const PACK_OF_PHRASES = ['in a {v}', '{v}'];
const COUNT_PHRASES = ['{v}', 'in the {v} pack'];
/** For values that already name their group (`fresh scent`, `letter size`). */
const SELF_NAMED_PHRASES = ['in {v}', 'with {v}'];

function optionPhrase(rng: Rng, group: string, value: string): string {
  return rng.pick(optionPhrases(group, value)).replace('{v}', value);
}

function optionPhrases(group: string, value: string): readonly string[] {
  if (value.split(' ').includes(group)) return SELF_NAMED_PHRASES;
  if (group === 'size') {
    return /^[\d.x-]+$|small|medium|large/.test(value)
      ? LETTER_SIZE_PHRASES
      : MEASURED_SIZE_PHRASES;
  }
  if (group === 'pack' || group === 'count') {
    if (/^(pack|set) of/.test(value)) return PACK_OF_PHRASES;
    return value.includes('pack') ? ['{v}'] : COUNT_PHRASES;
  }
  return OPTION_PHRASES[group] ?? [`with {v} ${group}`, `in {v} ${group}`];
}

/** Plural noun phrases (`running shoes`, `jeans`) take no article; `dress` is singular. */
function isPlural(type: string): boolean {
  return /[^s]s$/.test(type);
}

/** `a` or `an` by how the next word sounds: `an 8 inch`, `a usb c charger`. */
function article(nextWord: string, plural: boolean): string {
  if (plural) return '';
  if (/^(usb|uni|use)/.test(nextWord)) return 'a ';
  return /^([aeiou]|8|11 |18 )/.test(nextWord) ? 'an ' : 'a ';
}

/** `a`, `a and b`, `a, b and c`. */
function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
