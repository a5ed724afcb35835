/**
 * WebShop's reward for buying `product` with `selectedOptions` when the shopper wanted `goal`,
 * after `get_reward` in WebShop's `web_agent_site/engine/goal.py` (Yao et al., 2022) as it stands
 * on WebShop's master branch (commit 64fa2a5, September 2024; the reward code is unchanged since
 * the paper's release):
 *
 *   reward = r_type · (N_att + N_opt + 1[price ≤ priceUpper]) / (|goal.attributes| + |goal.options| + 1)
 *
 * - N_att counts the goal attributes the product has. A goal attribute counts (at most once) when
 *   fuzzball's `token_set_ratio` with one of the product's attributes is above 85, or else when it
 *   is a substring of the lower-cased title, joined features or description. `token_set_ratio` is
 *   100 whenever one phrase's words are a subset of the other's, so `free aluminum` matches
 *   `aluminum free` and `skin` matches `sensitive skin`. As master's `get_attribute_reward`.
 * - N_opt counts the goal option values that some selected value matches, each at most once:
 *   master's `get_option_reward` loops over the goal's options and, for each, over the selected
 *   ones, counting a match when `token_set_ratio` of the two (both through `normalizeColor`) is
 *   above 85. Nothing is credited for a value found in the title or description: that, and
 *   looping over the selected options, is WebShop's unmerged `v2` branch (efc76f6), not master.
 * - r_type checks the product is the right kind of thing. `queryMatch`: same `productType`.
 *   `categoryMatch`: at least 2 breadcrumb entries in common. `titleScore`: the number of distinct
 *   goal-name nouns (see `nouns.ts`) that are also nouns of the product title, over the count of
 *   goal-name nouns with repeats, or 0.2 when the name has none. r_type is 1; 0.5 if none of
 *   `queryMatch`, `categoryMatch`, `titleScore > 0.2` holds; then 0.1 if `titleScore < 0.1`; then 0
 *   if `titleScore` is 0. A title sharing no noun with the goal thus scores 0 whatever else matches.
 *   As master's `get_type_reward`.
 *
 * Where we depart from master, and why:
 * - A selected `size` must equal the goal value exactly (after `normalizeColor`): fuzzily
 *   `x-large` would match `large`, and `3 ounce (pack of 2)` `2.6 ounce`. This is the `v2`
 *   branch's rule (`EXACT_MATCH_OPTS = ["size"]`), taken alone.
 * - `normalizeColor` finds colour words as whole words and takes the last one (the hue: `navy
 *   blue` → `blue`) from our own list; master's `normalize_color` takes the first word of its
 *   list that is a substring of the value (see {@link normalizeColor}).
 * - Master's `get_reward` hands `get_option_reward` a synthetic goal's options as (name, value)
 *   pairs; we compare values with values.
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
const COLOR_SPELLINGS: Readonly<Record<string, string>> = {
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
 * Words that name a colour by themselves (after {@link COLOR_SPELLINGS}): hues, named shades,
 * metals and finishes a shop offers as a colour option. Modifiers that never stand alone as a
 * colour (`dark`, `light`, `deep`, `warm`) are left out, so `dark red` is red.
 */
const COLOR_WORDS: ReadonlySet<string> = new Set(
  `black white gray red orange yellow green blue purple pink brown
   beige ivory cream tan khaki camel sand taupe
   navy teal turquoise aqua cyan indigo cobalt sapphire
   violet lavender lilac mauve plum magenta fuchsia
   burgundy maroon wine ruby crimson scarlet cherry coral salmon peach apricot
   olive lime mint sage emerald jade
   charcoal slate graphite smoke
   gold silver bronze copper rose nude blush
   chocolate espresso coffee mocha caramel honey mustard
   transparent multicolor rainbow`.split(/\s+/),
);

/**
 * One name per color, as WebShop's `normalize_color` makes one so that `navy blue` and `royal
 * blue` match: lower-cased, hyphens and underscores as spaces, spelling variants rewritten
 * (`grey` → `gray`, `Multi-Coloured` → `multicolor`, `clear` → `transparent`), then the last colour
 * word of the value, if it has one (`navy blue` → `blue`, `Dark-Grey` → `gray`); other values
 * (sizes, flavors) pass through with only the first steps.
 *
 * Master's `normalize_color` instead returns the first word of its alphabetical list that occurs
 * anywhere in the value, as a substring: `dark red` and `dark blue` both become `dark` (and
 * match), and `standard` becomes `tan`. Whole words and the last colour word avoid both.
 */
export function normalizeColor(value: string): string {
  let text = value
    .toLowerCase()
    .replace(/[-_\s]+/g, ' ')
    .trim();
  for (const [pattern, canonical] of COLOR_PHRASES) text = text.replace(pattern, canonical);
  const words = text
    .split(' ')
    .map((word) => COLOR_SPELLINGS[word] ?? word)
    .join(' ')
    .split(' ');
  const hue = words.findLast((word) => COLOR_WORDS.has(word));
  return hue ?? words.join(' ');
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
