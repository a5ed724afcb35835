import { budgetOf, contentWords, priceIn, words } from '../../core/text.ts';
import type { RewardModel } from '../reward-model.ts';
import { outcomeDoubt } from '../uncertainty.ts';
import type { ItemView } from './grammar.ts';

/** What the buffer has shown about one product. */
export interface ProductFacts extends ItemView {
  description?: string;
  features?: string;
}

/**
 * Words the buffer taught about instructions: the option values and group names item pages
 * showed (lower-cased), and the filler words of instructions (`search`, `budget`, `priced`)
 * that no product's text ever showed, so they ask nothing of the product.
 */
export interface InstructionVocabulary {
  values: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  filler: ReadonlySet<string>;
}

/** What an instruction asks of a purchase, as far as the vocabulary can tell. */
export interface InstructionReading {
  /** The option values it names, the longest where they overlap. */
  named: string[];
  /** The rest of its content words, less group names, filler and the budget. */
  wanted: string[];
  budget: number | undefined;
}

/** An empty vocabulary: no option value, group or filler word known. */
export const NO_VOCABULARY: InstructionVocabulary = {
  values: new Set(),
  groups: new Set(),
  filler: new Set(),
};

const phrase = (value: string) => ` ${words(value).join(' ')} `;

/**
 * Reads an instruction: the option values it names are the known values (any product's, and
 * `offered`) it contains as whole phrases, the longest where they overlap (`4 ounce (pack of 1)`,
 * not `pack of 1`); the rest of its words, less group names, filler and the budget, stand for
 * what the product must be and have.
 */
export function readInstruction(
  instruction: string,
  vocabulary: InstructionVocabulary,
  offered: ReadonlySet<string> = new Set(),
): InstructionReading {
  const sentence = withoutBudget(instruction);
  const candidates = [...new Set([...vocabulary.values, ...offered])].filter(
    (value) => phrase(value).trim() !== '' && sentence.includes(phrase(value)),
  );
  const named = candidates.filter(
    (value) =>
      !candidates.some((other) => other !== value && phrase(other).includes(phrase(value))),
  );
  const optionWords = new Set(named.flatMap((value) => words(value)));
  const wanted = contentWords(sentence).filter(
    (w) => !optionWords.has(w) && !vocabulary.groups.has(w) && !vocabulary.filler.has(w),
  );
  return { named, wanted, budget: budgetOf(instruction) };
}

/** The instruction's words with `40.00 dollars` taken out, padded for whole-phrase search. */
function withoutBudget(instruction: string): string {
  return ` ${words(instruction.replace(/\d+(\.\d+)?\s*dollars?/gi, '')).join(' ')} `;
}

/**
 * Features of a purchase for the reward model ({@link readInstruction} says what is wanted):
 * - [0] the share of wanted words the product's known text (title, description, features and
 *   `verified`, the words of instructions a purchase of it fully satisfied) shows;
 * - [1] the share its title shows;
 * - [2] the share of named option values selected (1 when it names none);
 * - [3] the share of named option values this product does not offer;
 * - [4] whether a selected value is one the instruction does not name;
 * - [5] whether the price is within the budget.
 */
export function purchaseFeatures(
  instruction: string,
  facts: ProductFacts,
  selected: readonly string[],
  vocabulary: InstructionVocabulary = NO_VOCABULARY,
  verified: ReadonlySet<string> = new Set(),
): number[] {
  const offered = new Set(facts.options.flatMap((g) => g.values.map((v) => v.toLowerCase())));
  const { named, wanted, budget } = readInstruction(instruction, vocabulary, offered);
  const text = new Set([
    ...contentWords(`${facts.title} ${facts.description ?? ''} ${facts.features ?? ''}`),
    ...verified,
  ]);
  const title = new Set(contentWords(facts.title));
  const chosen = new Set(selected.map((v) => phrase(v)));
  const sentence = withoutBudget(instruction);
  const share = (count: number, of: number, none: number) => (of > 0 ? count / of : none);
  const price = priceIn(facts.price);
  return [
    share(wanted.filter((w) => text.has(w)).length, wanted.length, 0),
    share(wanted.filter((w) => title.has(w)).length, wanted.length, 0),
    share(named.filter((v) => chosen.has(phrase(v))).length, named.length, 1),
    share(named.filter((v) => !offered.has(v)).length, named.length, 0),
    selected.some((v) => !sentence.includes(phrase(v))) ? 1 : 0,
    budget !== undefined && price !== undefined && price <= budget ? 1 : 0,
  ];
}

/** A purchase's reward and why. */
export interface PurchaseVerdict {
  reward: number;
  why: string;
  /**
   * How unsure the reward is, in [0, 1]: 0 for a purchase a real episode made and for the rules;
   * for the reward model's partial reward, the doubt of its classifier's success probability
   * (`outcomeDoubt`), 1 where it has none (no real success to learn from).
   */
  doubt: number;
}

/**
 * Below this share of the instruction's type words (see `WebShopKnowledge.typeWords`) in its
 * title, a product is not the kind of thing asked for: WebShop's type reward is 0 when a title
 * shares no noun with the wanted product's, and a title that misses most of the words naming the
 * kind rarely shares one that counts.
 */
const TYPE_SHARE = 0.5;

/**
 * A price past this multiple of the budget pays nothing. WebShop itself only takes the price's
 * one part of the score away; a shopper told "under 40 dollars" who pays $141 has not shopped,
 * and a policy paid for it learns to ignore budgets.
 */
const FAR_OVER_BUDGET = 2;

/**
 * Scores a purchase, surest evidence first:
 * 1. a real episode made this very purchase (`seen`): its reward;
 * 2. the wrong kind of product (`typeShare` below {@link TYPE_SHARE}) or a price far over
 *    budget: 0;
 * 3. every wanted word shown by what is known of the product, every named option value chosen
 *    and offered, within budget: 1, a full success;
 * 4. otherwise the reward model's partial reward, below 1: what is not known (attributes the
 *    pages never showed, options the instruction names in words no item page used) is not
 *    paid as a success, since a policy unlike the expert would be paid for its mistakes.
 */
export function judgePurchase({
  features,
  price,
  budget,
  typeShare,
  seen,
  model,
}: {
  features: readonly number[];
  price: number | undefined;
  budget: number | undefined;
  /** Share of the instruction's type words the title has; undefined when none are known. */
  typeShare: number | undefined;
  seen: number | undefined;
  model: RewardModel;
}): PurchaseVerdict {
  if (seen !== undefined)
    return { reward: seen, why: 'a real episode made this very purchase', doubt: 0 };
  if (typeShare !== undefined && typeShare < TYPE_SHARE)
    return {
      reward: 0,
      why: `the title has ${(100 * typeShare).toFixed(0)}% of the words naming the kind of product asked for: the wrong kind`,
      doubt: 0,
    };
  if (price !== undefined && budget !== undefined && price > FAR_OVER_BUDGET * budget)
    return { reward: 0, why: `$${price} is far over the budget of $${budget}`, doubt: 0 };
  const [known, , chosen, unoffered, , withinBudget] = features;
  if (known === 1 && chosen === 1 && unoffered === 0 && withinBudget === 1)
    return {
      reward: 1,
      why: 'the product shows every wanted word, every named option is chosen, within budget',
      doubt: 0,
    };
  const p = model.successProbability(features);
  return {
    reward: model.partial(features),
    why: `not every wanted word or option is known to be met; the reward model fit on ${model.samples} real purchases gives the partial reward`,
    doubt: p === undefined ? 1 : outcomeDoubt(p),
  };
}
