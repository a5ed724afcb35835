/**
 * Instructions for webshop goals in the webshop env's style (`i am looking for a gluten free
 * granola in honey roasted flavor, and price lower than 30.00 dollars`): the product type, every
 * wanted attribute and every option value verbatim, because the reward and the scripted expert look
 * for them by string, and the budget as `N.NN dollars`, which instruction parsers read. A small
 * version of the env's own writer, which `envs/webshop/goals.ts` keeps private.
 */
import type { Rng } from '../../core/rng.ts';
import type { Goal } from '../../envs/webshop/types.ts';

const OPENERS = [
  'i am looking for',
  'i want',
  'i need',
  'find me',
  'i would like',
  "i'm looking for",
];
const PRICE_PHRASES = [
  ', and price lower than {p} dollars',
  ' under {p} dollars',
  ' for less than {p} dollars',
];

export function phraseWebShopGoal(
  goal: Pick<Goal, 'productType' | 'attributes' | 'options' | 'priceUpper'>,
  rng: Rng,
): string {
  const { productType: type, attributes } = goal;
  const plural = /[^s]s$/.test(type);
  const thing =
    attributes.length === 0
      ? `${article(type, plural)}${type}`
      : rng.chance(0.5)
        ? `${article(attributes[0] as string, plural)}${joinAnd(attributes)} ${type}`
        : `${article(type, plural)}${type} with ${joinAnd(attributes)}`;
  const options = Object.entries(goal.options).map(([group, value]) => optionPhrase(group, value));
  const optionsPart = options.length > 0 ? ` ${joinAnd(options)}` : '';
  const price = rng.pick(PRICE_PHRASES).replace('{p}', goal.priceUpper.toFixed(2));
  return `${rng.pick(OPENERS)} ${thing}${optionsPart}${price}`;
}

/** `in x-large size`, `in honey roasted flavor`; values that name their group or a count stand alone. */
function optionPhrase(group: string, value: string): string {
  if (value.split(/\W+/).includes(group) || ['pack', 'count', 'pieces'].includes(group)) {
    return `in ${value}`;
  }
  return `in ${value} ${group}`;
}

/** Plural noun phrases (`running shoes`) take no article. */
function article(nextWord: string, plural: boolean): string {
  if (plural) return '';
  return /^[aeiou]/.test(nextWord) ? 'an ' : 'a ';
}

function joinAnd(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
