import { token_set_ratio as tokenSetRatio } from 'fuzzball';
import { describe, expect, it } from 'vitest';
import { nouns } from './nouns.ts';
import { normalizeColor, webshopReward } from './reward.ts';
import type { Goal, Product } from './types.ts';

const DEODORANT_TITLE = 'Aluminum Free Deodorant for Sensitive Skin, Lavender Scent';
/** 12 nouns: `Stick` is tagged VERB. */
const LONG_DEODORANT_NAME =
  'Aluminum Free Deodorant Stick for Sensitive Skin, Lavender and Chamomile Scent, Travel Size Twin Pack';

const deodorant: Product = {
  asin: 'B0DEOD0001',
  category: 'beauty',
  categoryPath: [
    'Beauty & Personal Care',
    'Personal Care',
    'Deodorants & Antiperspirants',
    'Deodorants',
  ],
  productType: 'deodorant',
  brand: 'Fresh Meadow',
  title: DEODORANT_TITLE,
  price: 12.5,
  attributes: ['aluminum free', 'sensitive skin', 'long lasting'],
  options: [
    { name: 'scent', values: ['lavender', 'unscented'] },
    { name: 'size', values: ['2.6 ounce', '3 ounce (pack of 2)'] },
  ],
  description: 'A gentle deodorant made with coconut oil and shea butter.',
  features: ['Paraben free formula', 'Vegan and cruelty free'],
};

const deodorantGoal: Goal = {
  asin: 'B0DEOD0001',
  category: 'beauty',
  categoryPath: deodorant.categoryPath,
  productType: 'deodorant',
  name: DEODORANT_TITLE,
  attributes: ['aluminum free', 'long lasting'],
  options: { scent: 'lavender', size: '2.6 ounce' },
  priceUpper: 20,
  instruction: 'i need a long lasting aluminum free deodorant in lavender, 2.6 ounce',
};

const wantedOptions = { scent: 'lavender', size: '2.6 ounce' };

const hoodie: Product = {
  asin: 'B0HOOD0001',
  category: 'fashion',
  categoryPath: ['Clothing, Shoes & Jewelry', 'Men', 'Clothing', 'Hoodies & Sweatshirts'],
  productType: 'hoodie',
  brand: 'Northway',
  title: 'Unisex Cotton Hoodie, Grey',
  price: 34.99,
  attributes: ['machine wash', 'cotton blend'],
  options: [
    { name: 'color', values: ['grey', 'black'] },
    { name: 'size', values: ['large', 'x-large'] },
  ],
  description: 'A soft pullover hoodie with a kangaroo pocket.',
  features: ['Drawstring hood', 'Ribbed cuffs'],
};

const hoodieGoal: Goal = {
  asin: 'B0HOOD0001',
  category: 'fashion',
  categoryPath: hoodie.categoryPath,
  productType: 'hoodie',
  name: hoodie.title,
  attributes: ['machine wash'],
  options: { color: 'gray', size: 'large' },
  priceUpper: 40,
  instruction: 'i want a machine wash hoodie in gray, size large',
};

describe('nouns', () => {
  it('tags the fixture titles as the hand-computed rewards assume', () => {
    expect(nouns(DEODORANT_TITLE)).toEqual([
      'aluminum',
      'free',
      'deodorant',
      'sensitive',
      'skin',
      'lavender',
      'scent',
    ]);
    expect(nouns(LONG_DEODORANT_NAME)).toHaveLength(12);
    expect(nouns(LONG_DEODORANT_NAME)).not.toContain('stick');
    expect(nouns('Lavender Hand Soap')).toEqual(['lavender', 'hand', 'soap']);
    expect(nouns('Sensitive Skin Face Cream')).toEqual(['sensitive', 'skin', 'face', 'cream']);
    expect(nouns('Coconut Body Lotion')).toEqual(['coconut', 'body', 'lotion']);
    expect(nouns('Unisex Cotton Hoodie, Grey')).toEqual(['unisex', 'cotton', 'hoodie', 'grey']);
    expect(nouns('Shampoo Brush and Shampoo')).toEqual(['shampoo', 'brush', 'shampoo']);
    expect(nouns('soft and gentle')).toEqual([]);
  });

  it('returns the memoised list for a title seen before', () => {
    expect(nouns(DEODORANT_TITLE)).toBe(nouns(DEODORANT_TITLE));
  });
});

describe('webshopReward', () => {
  it('gives 1 for the target product with the wanted options under budget', () => {
    expect(webshopReward(deodorant, deodorantGoal, wantedOptions)).toEqual({
      reward: 1,
      rType: 1,
      rAttribute: 1,
      rOption: 1,
      rPrice: 1,
      attributeMatches: 2,
      optionMatches: 2,
      queryMatch: true,
      categoryMatch: true,
      titleScore: 1,
    });
  });

  it('loses one point of five for one goal attribute of two missing', () => {
    const goal = { ...deodorantGoal, attributes: ['aluminum free', 'travel size'] };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.attributeMatches).toBe(1);
    expect(result.rAttribute).toBeCloseTo(0.5);
    expect(result.reward).toBeCloseTo((1 + 2 + 1) / 5);
  });

  it('does not match an attribute found nowhere in the product', () => {
    const goal = { ...deodorantGoal, attributes: ['travel size'] };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.attributeMatches).toBe(0);
    expect(result.rAttribute).toBe(0);
    expect(result.reward).toBeCloseTo((0 + 2 + 1) / 4);
  });

  it.each([
    ['lavender scent', 'the title'],
    ['paraben free', 'the features'],
    ['coconut oil', 'the description'],
  ])('matches %s, in no product attribute, through %s', (attribute) => {
    for (const productAttribute of deodorant.attributes) {
      expect(tokenSetRatio(productAttribute, attribute)).toBeLessThanOrEqual(85);
    }
    const goal = { ...deodorantGoal, attributes: [attribute, 'travel size'] };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.attributeMatches).toBe(1);
    expect(result.reward).toBeCloseTo((1 + 2 + 1) / 5);
  });

  it('matches attributes fuzzily: word order and subsets do not matter', () => {
    expect(deodorant.title.toLowerCase()).not.toContain('free aluminum');
    const goal = { ...deodorantGoal, attributes: ['free aluminum', 'skin'] };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.attributeMatches).toBe(2);
    expect(result.reward).toBeCloseTo(1);
  });

  it('counts a goal attribute once however many product attributes match it', () => {
    const product = { ...deodorant, attributes: ['aluminum free', 'free aluminum'] };
    const goal = { ...deodorantGoal, attributes: ['aluminum free'] };
    const result = webshopReward(product, goal, wantedOptions);
    expect(result.attributeMatches).toBe(1);
    expect(result.rAttribute).toBe(1);
    expect(result.reward).toBeCloseTo(1);
  });

  it('leaves options out of the denominator when the goal names none', () => {
    const goal = { ...deodorantGoal, attributes: ['aluminum free', 'travel size'], options: {} };
    for (const selected of [{}, wantedOptions]) {
      const result = webshopReward(deodorant, goal, selected);
      expect(result.rOption).toBeNull();
      expect(result.optionMatches).toBe(0);
      expect(result.reward).toBeCloseTo((1 + 0 + 1) / 3);
    }
  });

  it('counts a price exactly at the budget as within it', () => {
    const goal = { ...deodorantGoal, priceUpper: 12.5 };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.rPrice).toBe(1);
    expect(result.reward).toBeCloseTo(1);
  });

  it('loses the price point over budget', () => {
    const goal = { ...deodorantGoal, priceUpper: 12.49 };
    const result = webshopReward(deodorant, goal, wantedOptions);
    expect(result.rPrice).toBe(0);
    expect(result.reward).toBeCloseTo((2 + 2 + 0) / 5);
  });

  it('scores a wrong option like a missing one', () => {
    const wrong = webshopReward(deodorant, deodorantGoal, {
      scent: 'unscented',
      size: '2.6 ounce',
    });
    const missing = webshopReward(deodorant, deodorantGoal, { size: '2.6 ounce' });
    for (const result of [wrong, missing]) {
      expect(result.optionMatches).toBe(1);
      expect(result.rOption).toBeCloseTo(0.5);
      expect(result.reward).toBeCloseTo((2 + 1 + 1) / 5);
    }
    expect(webshopReward(deodorant, deodorantGoal, {}).reward).toBeCloseTo((2 + 0 + 1) / 5);
  });

  it('matches sizes exactly, not fuzzily', () => {
    expect(tokenSetRatio('3 ounce (pack of 2)', '2.6 ounce')).toBeGreaterThan(85);
    expect(tokenSetRatio('x-large', 'large')).toBeGreaterThan(85);
    const deodorantResult = webshopReward(deodorant, deodorantGoal, {
      scent: 'lavender',
      size: '3 ounce (pack of 2)',
    });
    expect(deodorantResult.optionMatches).toBe(1);
    expect(deodorantResult.reward).toBeCloseTo((2 + 1 + 1) / 5);
    const hoodieResult = webshopReward(hoodie, hoodieGoal, { color: 'grey', size: 'x-large' });
    expect(hoodieResult.optionMatches).toBe(1);
    expect(hoodieResult.reward).toBeCloseTo((1 + 1 + 1) / 4);
  });

  it('normalises color spellings before matching options', () => {
    expect(tokenSetRatio('grey', 'gray')).toBeLessThanOrEqual(85);
    const result = webshopReward(hoodie, hoodieGoal, { color: 'Grey', size: 'large' });
    expect(result.optionMatches).toBe(2);
    expect(result.reward).toBeCloseTo(1);
  });

  it('counts a goal option once however many selections match it', () => {
    const goal = { ...hoodieGoal, options: { color: 'gray' } };
    const result = webshopReward(hoodie, goal, { color: 'gray', trim: 'grey' });
    expect(result.optionMatches).toBe(1);
    expect(result.rOption).toBe(1);
    expect(result.reward).toBeCloseTo(1);
  });

  describe('type reward (other components all met, so reward equals rType)', () => {
    const soapCategories = ['Beauty & Personal Care', 'Skin Care', 'Hand Soaps'];

    it('is 1 for the same product type even when only 1 of 7 goal nouns is shared', () => {
      const product = { ...deodorant, title: 'Lavender Hand Soap', categoryPath: soapCategories };
      const result = webshopReward(product, deodorantGoal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: true, categoryMatch: false, rType: 1 });
      expect(result.titleScore).toBeCloseTo(1 / 7);
      expect(result.reward).toBeCloseTo(1);
    });

    it('is 1 when the breadcrumbs share 2 entries, compared trimmed', () => {
      const product = {
        ...deodorant,
        title: 'Lavender Hand Soap',
        productType: 'hand soap',
        categoryPath: [' Beauty & Personal Care ', 'Personal Care  ', 'Soaps'],
      };
      const result = webshopReward(product, deodorantGoal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: false, categoryMatch: true, rType: 1 });
      expect(result.reward).toBeCloseTo(1);
    });

    it('is 1 when more than a fifth of the goal nouns are shared', () => {
      const product = {
        ...deodorant,
        title: 'Sensitive Skin Face Cream',
        productType: 'face cream',
        categoryPath: soapCategories,
      };
      const result = webshopReward(product, deodorantGoal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: false, categoryMatch: false, rType: 1 });
      expect(result.titleScore).toBeCloseTo(2 / 7);
      expect(result.reward).toBeCloseTo(1);
    });

    it('is 0.5 when nothing matches and the title score is in (0.1, 0.2]', () => {
      const product = {
        ...deodorant,
        title: 'Lavender Hand Soap',
        productType: 'hand soap',
        categoryPath: soapCategories,
      };
      const result = webshopReward(product, deodorantGoal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: false, categoryMatch: false, rType: 0.5 });
      expect(result.titleScore).toBeCloseTo(1 / 7);
      expect(result.reward).toBeCloseTo(0.5);
    });

    it('is 0.1 when under a tenth of the goal nouns are shared, even for the same type', () => {
      const product = { ...deodorant, title: 'Lavender Hand Soap' };
      const goal = { ...deodorantGoal, name: LONG_DEODORANT_NAME };
      const result = webshopReward(product, goal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: true, categoryMatch: true, rType: 0.1 });
      expect(result.titleScore).toBeCloseTo(1 / 12);
      expect(result.reward).toBeCloseTo(0.1);
    });

    it('is 0 when no goal noun is shared, whatever else matches', () => {
      const product = { ...deodorant, title: 'Coconut Body Lotion' };
      const result = webshopReward(product, deodorantGoal, wantedOptions);
      expect(result).toMatchObject({ queryMatch: true, categoryMatch: true, rType: 0 });
      expect(result.titleScore).toBe(0);
      expect(result.reward).toBe(0);
    });

    it('takes a title score of 0.2 when the goal name has no nouns', () => {
      const goal = { ...deodorantGoal, name: 'soft and gentle' };
      const sameType = webshopReward(deodorant, goal, wantedOptions);
      expect(sameType.titleScore).toBeCloseTo(0.2);
      expect(sameType.rType).toBe(1);
      const otherType = { ...deodorant, productType: 'hand soap', categoryPath: soapCategories };
      expect(webshopReward(otherType, goal, wantedOptions).rType).toBe(0.5);
    });

    it('counts repeated goal nouns in the denominator, as WebShop does', () => {
      const title = 'Shampoo Brush and Shampoo';
      const result = webshopReward(
        { ...deodorant, title },
        { ...deodorantGoal, name: title },
        wantedOptions,
      );
      expect(result.titleScore).toBeCloseTo(2 / 3);
      expect(result.rType).toBe(1);
    });
  });
});

describe('normalizeColor', () => {
  it.each([
    ['Grey', 'gray'],
    ['Dark-Grey', 'gray'],
    ['heather  grey', 'gray'],
    ['Multi-Coloured', 'multicolor'],
    ['multicolour', 'multicolor'],
    ['Off-White', 'white'],
    ['offwhite', 'white'],
    ['Golden', 'gold'],
    ['Clear', 'transparent'],
    ['X-Large', 'x large'],
    ['2.6 ounce', '2.6 ounce'],
    ['navy blue', 'blue'],
    ['Royal Blue', 'blue'],
    ['dark red', 'red'],
    ['ruby red', 'red'],
    ['Natural Beige', 'beige'],
    ['standard', 'standard'],
    ['stonewashed', 'stonewashed'],
  ])('%s → %s', (raw, normalised) => {
    expect(normalizeColor(raw)).toBe(normalised);
  });

  it('makes shades of one hue match as WebShop does (navy blue, royal blue)', () => {
    expect(tokenSetRatio('navy blue', 'royal blue')).toBeLessThanOrEqual(85);
    const goal = { ...hoodieGoal, options: { color: 'navy blue' } };
    const result = webshopReward(hoodie, goal, { color: 'Royal-Blue' });
    expect(result.optionMatches).toBe(1);
    expect(result.reward).toBeCloseTo(1);
  });

  it('keeps hues apart that share a modifier, and words that merely contain a colour', () => {
    // WebShop's normalize_color maps both to "dark" (first of its list, as a substring) and
    // "standard" to "tan": our departures.
    const goal = { ...hoodieGoal, options: { color: 'dark red' } };
    expect(webshopReward(hoodie, goal, { color: 'dark blue' }).optionMatches).toBe(0);
    const tan = { ...hoodieGoal, options: { fit: 'tan' } };
    expect(webshopReward(hoodie, tan, { fit: 'standard' }).optionMatches).toBe(0);
  });

  it('credits no option value found only in the title (WebShop master, not its v2 branch)', () => {
    const goal = { ...hoodieGoal, options: { color: 'gray' } };
    expect(hoodie.title.toLowerCase()).not.toContain('purple');
    const titled = { ...hoodie, title: `${hoodie.title} in Purple` };
    const result = webshopReward(titled, { ...goal, options: { color: 'purple' } }, {});
    expect(result.optionMatches).toBe(0);
  });
});
