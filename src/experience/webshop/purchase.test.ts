import { describe, expect, it } from 'vitest';
import { RewardModel } from '../reward-model.ts';
import { outcomeDoubt } from '../uncertainty.ts';
import { judgePurchase, purchaseFeatures, readInstruction } from './purchase.ts';

describe('purchaseFeatures', () => {
  const vocabulary = {
    values: new Set(['pack of 1', '4 ounce (pack of 1)', '16 ounce (pack of 1)', 'spicy chipotle']),
    groups: new Set(['size', 'flavor', 'color']),
    filler: new Set(['search']),
  };
  const ask =
    'i want a vegan almond butter in spicy chipotle flavor and in 4 ounce (pack of 1) size, and price lower than 30.00 dollars';
  const butter = {
    asin: 'B0AAAAAAAA',
    title: 'Redfern Vegan Almond Butter',
    price: '$12.99',
    options: [
      { name: 'flavor', values: ['spicy chipotle', 'honey'] },
      { name: 'size', values: ['4 ounce (pack of 1)', '16 ounce (pack of 1)'] },
    ],
  };
  // [0] wanted words in the known text, [1] in the title, [2] named values selected,
  // [3] named values not offered, [4] an unnamed value selected, [5] within budget
  it('names the longest option values the instruction contains, and checks them against the choice', () => {
    const right = purchaseFeatures(
      ask,
      butter,
      ['spicy chipotle', '4 ounce (pack of 1)'],
      vocabulary,
    );
    expect(right).toEqual([1, 1, 1, 0, 0, 1]);
    const wrongSize = purchaseFeatures(
      ask,
      butter,
      ['spicy chipotle', '16 ounce (pack of 1)'],
      vocabulary,
    );
    expect(wrongSize[2]).toBe(0.5);
    expect(wrongSize[4]).toBe(1);
  });

  it('leaves option words and group names out of what the product must be, and sees what it lacks', () => {
    const plain = { ...butter, title: 'Redfern Almond Butter', options: [] };
    const [known, title, chosen, unoffered] = purchaseFeatures(ask, plain, [], vocabulary);
    // wanted: vegan, almond, butter (not spicy, chipotle, ounce, pack, flavor, size)
    expect(known).toBeCloseTo(2 / 3);
    expect(title).toBeCloseTo(2 / 3);
    expect(chosen).toBe(0);
    expect(unoffered).toBe(1);
  });
});

describe('readInstruction', () => {
  it('leaves filler words, group names, option values and the budget out of what is wanted', () => {
    const vocabulary = {
      values: new Set(['small', 'navy blue']),
      groups: new Set(['size', 'color']),
      filler: new Set(['search', 'costs']),
    };
    const reading = readInstruction(
      'search for a lightweight summer dress in small size and navy blue color that costs less than 40.00 dollars',
      vocabulary,
    );
    expect(reading).toEqual({
      named: ['small', 'navy blue'],
      wanted: ['lightweight', 'summer', 'dress'],
      budget: 40,
    });
  });
});

describe('judgePurchase', () => {
  // Partial rewards follow the share of wanted words known; successes have them all.
  const model = RewardModel.fit(
    [
      [1, 1, 1, 0, 0, 1],
      [0.5, 0.5, 1, 0, 0, 1],
      [0.5, 0.5, 0, 0, 0, 1],
      [0, 0, 0, 0, 0, 1],
    ],
    [1, 0.7, 0.5, 0.2],
  );
  const success = [1, 1, 1, 0, 0, 1];
  const judge = (overrides: Partial<Parameters<typeof judgePurchase>[0]>) =>
    judgePurchase({
      features: success,
      price: 25,
      budget: 40,
      typeShare: 1,
      seen: undefined,
      model,
      ...overrides,
    });

  it('pays 1 only when every wanted word is known, every named option chosen, within budget', () => {
    expect(judge({}).reward).toBe(1);
    // An attribute the pages never showed, an option not chosen, or over budget: not a success.
    for (const features of [
      [0.75, 0.75, 1, 0, 0, 1],
      [1, 1, 0.5, 0, 0, 1],
      [1, 1, 1, 0.5, 0, 1],
      [1, 1, 1, 0, 0, 0],
    ]) {
      const { reward } = judge({ features });
      expect(reward).toBeLessThan(1);
      expect(reward).toBeGreaterThanOrEqual(0);
    }
  });

  it('pays 0 for the wrong kind of product, however well it matches otherwise', () => {
    const verdict = judge({ typeShare: 0 });
    expect(verdict.reward).toBe(0);
    expect(verdict.why).toMatch(/wrong kind/);
    expect(judge({ typeShare: 0.4 }).reward).toBe(0);
    // Nothing known of the kind: the other rules decide.
    expect(judge({ typeShare: undefined }).reward).toBe(1);
  });

  it('pays 0 for a price far over budget, and no success for one just over', () => {
    const far = judge({ price: 141, features: [1, 1, 1, 0, 0, 0] });
    expect(far.reward).toBe(0);
    expect(far.why).toMatch(/far over the budget of \$40/);
    const near = judge({ price: 45, features: [1, 1, 1, 0, 0, 0] });
    expect(near.reward).toBeGreaterThan(0);
    expect(near.reward).toBeLessThan(1);
  });

  it('pays what a real episode got for the very same purchase', () => {
    expect(judge({ seen: 0.6 }).reward).toBe(0.6);
    expect(judge({ seen: 1, typeShare: 0 }).reward).toBe(1);
  });

  it("doubts no real purchase and no rule, and the reward model's partial reward by its classifier", () => {
    for (const ruled of [{ seen: 0.6 }, { typeShare: 0 }, { price: 141 }, {}])
      expect(judge(ruled).doubt).toBe(0);
    const unsure = [0.75, 0.75, 1, 0, 0, 1];
    const p = model.successProbability(unsure) as number;
    expect(p).toBeGreaterThan(0.05);
    expect(p).toBeLessThan(0.95);
    expect(judge({ features: unsure }).doubt).toBeCloseTo(outcomeDoubt(p), 10);
    expect(judge({ features: unsure }).doubt).toBeGreaterThan(0.1);
    // No real success to learn one from: the model cannot tell, fully unsure.
    const failures = RewardModel.fit([[0.5, 0.5, 0, 0, 0, 1]], [0.4]);
    expect(judge({ features: unsure, model: failures }).doubt).toBe(1);
  });
});
