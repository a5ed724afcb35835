/**
 * WebShop's reward for buying `product` with `selectedOptions` when the shopper wanted `goal`,
 * after `get_reward` in WebShop's `web_agent_site/engine/goal.py` (Yao et al., 2022):
 *
 *   reward = r_type · (N_att + N_opt + 1[price ≤ priceUpper]) / (|goal.attributes| + |goal.options| + 1)
 *
 * - N_att counts the goal attributes the product has. A goal attribute counts (at most once) when
 *   fuzzball's `token_set_ratio` with one of the product's attributes is above 85, or else when it
 *   is a substring of the lower-cased title, joined features or description. `token_set_ratio` is
 *   100 whenever one phrase's words are a subset of the other's, so `free aluminum` matches
 *   `aluminum free` and `skin` matches `sensitive skin`.
 * - N_opt counts the goal option values that some selected value matches (at most once each), both
 *   sides put through `normalizeColor` first. A selected `size` must equal the goal value exactly:
 *   fuzzily `x-large` would match `large`, and `3 ounce (pack of 2)` `2.6 ounce` (our departure).
 * - r_type checks the product is the right kind of thing. `queryMatch`: same `productType`.
 *   `categoryMatch`: at least 2 breadcrumb entries in common. `titleScore`: the share of the goal
 *   name's nouns (see `nouns.ts`; repeats count in the denominator, as in WebShop) that are also
 *   nouns of the product title, or 0.2 when the name has none. r_type is 1; 0.5 if none of
 *   `queryMatch`, `categoryMatch`, `titleScore > 0.2` holds; then 0.1 if `titleScore < 0.1`; then 0
 *   if `titleScore` is 0. A title sharing no noun with the goal thus scores 0 whatever else matches.
 *
 * Two more departures from WebShop, both to keep each goal option worth at most one point: WebShop loops
 * over the selected options, so one goal value could be matched by several selections and push
 * r_option above 1; and it also counted a selected value found in the title, features or
 * description even when it was not the wanted one.
 */
import { token_set_ratio as tokenSetRatio } from 'fuzzball';
import { nouns } from './nouns.ts';
import type { Goal, Product } from './types.ts';

/** The total reward and the parts it is made of, for logging and reward-shaping analyses. */
export interface RewardBreakdown {
  /** The total, in [0, 1]: `rType` times the share of goal attributes, options and budget met. */
  reward: number;
  /** 1, 0.5, 0.1 or 0: whether the product is the right kind of thing at all. */
  rType: number;
  /** Share of goal attributes matched, in [0, 1]; 1 when the goal names none. */
  rAttribute: number;
  /** Share of goal options matched, in [0, 1]; null when the goal names none. */
  rOption: number | null;
  /** 1 when the product's price is at or under the budget, else 0. */
  rPrice: number;
  /** How many goal attributes the product has. */
  attributeMatches: number;
  /** How many goal option values the selection matches. */
  optionMatches: number;
  /** The product's `productType` equals the goal's. */
  queryMatch: boolean;
  /** The product's and goal's breadcrumbs share at least 2 entries. */
  categoryMatch: boolean;
  /** Share of the goal name's nouns found among the product title's nouns; 0.2 if it has none. */
  titleScore: number;
}

/** `token_set_ratio` must exceed this (out of 100) for two phrases to match, as in WebShop. */
const FUZZY_MATCH_THRESHOLD = 85;

/** Option groups whose values must match exactly: sizes differ by a word (`large`, `x-large`). */
const EXACT_MATCH_OPTION_GROUPS: ReadonlySet<string> = new Set(['size']);

/** Variant color spellings and synonyms, by single word, mapped to one canonical word. */
const COLOR_WORDS: Readonly<Record<string, string>> = {
  grey: 'gray',
  greyish: 'grayish',
  colour: 'color',
  colours: 'colors',
  multicolour: 'multicolor',
  multicolored: 'multicolor',
  multicoloured: 'multicolor',
  golden: 'gold',
  silvery: 'silver',
  fuschia: 'fuchsia',
  clear: 'transparent',
  offwhite: 'off white',
};

/** Variant color phrases, matched on whole words after hyphens become spaces. */
const COLOR_PHRASES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bmulti colou?r(?:ed)?\b/g, 'multicolor'],
];

/**
 * One spelling per color: lower-cased, hyphens and underscores as spaces, single spaces, and
 * variants such as `grey`, `Multi-Coloured` or `clear` rewritten as `gray`, `multicolor`,
 * `transparent`. Other option values (sizes, flavors) pass through with only the first three.
 */
export function normalizeColor(value: string): string {
  let text = value
    .toLowerCase()
    .replace(/[-_\s]+/g, ' ')
    .trim();
  for (const [pattern, canonical] of COLOR_PHRASES) text = text.replace(pattern, canonical);
  return text
    .split(' ')
    .map((word) => COLOR_WORDS[word] ?? word)
    .join(' ');
}

/** Scores buying `product` with `selectedOptions` (group name → value) against `goal`. */
export function webshopReward(
  product: Product,
  goal: Goal,
  selectedOptions: Record<string, string>,
): RewardBreakdown {
  const { rType, queryMatch, categoryMatch, titleScore } = typeReward(product, goal);
  const attributeMatches = countAttributeMatches(product, goal.attributes);
  const goalOptionValues = Object.values(goal.options);
  const optionMatches = countOptionMatches(goalOptionValues, selectedOptions);
  const rPrice = product.price <= goal.priceUpper ? 1 : 0;

  const wanted = goal.attributes.length + goalOptionValues.length + 1;
  const reward = (rType * (attributeMatches + optionMatches + rPrice)) / wanted;

  return {
    reward,
    rType,
    rAttribute: goal.attributes.length > 0 ? attributeMatches / goal.attributes.length : 1,
    rOption: goalOptionValues.length > 0 ? optionMatches / goalOptionValues.length : null,
    rPrice,
    attributeMatches,
    optionMatches,
    queryMatch,
    categoryMatch,
    titleScore,
  };
}

function typeReward(
  product: Product,
  goal: Goal,
): Pick<RewardBreakdown, 'rType' | 'queryMatch' | 'categoryMatch' | 'titleScore'> {
  const queryMatch = product.productType === goal.productType;

  const goalCategories = new Set(goal.categoryPath.map((entry) => entry.trim()));
  const sharedCategories = new Set(
    product.categoryPath.map((entry) => entry.trim()).filter((entry) => goalCategories.has(entry)),
  );
  const categoryMatch = sharedCategories.size >= 2;

  const wantedNouns = nouns(goal.name);
  const productNouns = new Set(nouns(product.title));
  const sharedNouns = new Set(wantedNouns.filter((noun) => productNouns.has(noun)));
  const titleScore = wantedNouns.length === 0 ? 0.2 : sharedNouns.size / wantedNouns.length;

  let rType = 1;
  if (!(queryMatch || categoryMatch || titleScore > 0.2)) rType = 0.5;
  if (titleScore < 0.1) rType = 0.1;
  if (titleScore === 0) rType = 0;

  return { rType, queryMatch, categoryMatch, titleScore };
}

function countAttributeMatches(product: Product, goalAttributes: readonly string[]): number {
  const title = product.title.toLowerCase();
  const features = product.features.join(' ').toLowerCase();
  const description = product.description.toLowerCase();
  return goalAttributes.filter((goalAttribute) => {
    const wanted = goalAttribute.toLowerCase();
    return (
      product.attributes.some(
        (attribute) => tokenSetRatio(attribute, wanted) > FUZZY_MATCH_THRESHOLD,
      ) ||
      title.includes(wanted) ||
      features.includes(wanted) ||
      description.includes(wanted)
    );
  }).length;
}

function countOptionMatches(
  goalValues: readonly string[],
  selectedOptions: Record<string, string>,
): number {
  const selected = Object.entries(selectedOptions).map(([group, value]) => ({
    exact: EXACT_MATCH_OPTION_GROUPS.has(group.toLowerCase()),
    value: normalizeColor(value),
  }));
  return goalValues.filter((goalValue) => {
    const wanted = normalizeColor(goalValue);
    return selected.some(({ exact, value }) =>
      exact ? value === wanted : tokenSetRatio(value, wanted) > FUZZY_MATCH_THRESHOLD,
    );
  }).length;
}
