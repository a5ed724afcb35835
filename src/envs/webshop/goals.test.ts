import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { catalogIndex, getCatalog } from './catalog.ts';
import {
  budgetAbove,
  DEFAULT_TRAIN_TASK_COUNT,
  generateGoal,
  TEST_TASK_COUNT,
  webshopTask,
  webshopTasks,
} from './goals.ts';
import type { Goal, Product, WebShopTaskSpec } from './types.ts';

const id = { seed: 5, size: 1000 };
const products = getCatalog(id);
const index = catalogIndex(products);
const rng = new Rng(99);
const goals = Array.from({ length: 2000 }, (_, i) => generateGoal(products, rng.fork('g', i)));

function targetOf(goal: Goal): Product {
  const product = index.get(goal.asin);
  if (!product) throw new Error(`goal target ${goal.asin} is not in the catalog`);
  return product;
}

describe('generateGoal', () => {
  it('is deterministic given the rng', () => {
    expect(generateGoal(products, new Rng(1))).toEqual(generateGoal(products, new Rng(1)));
    expect(generateGoal(products, new Rng(1))).not.toEqual(generateGoal(products, new Rng(2)));
  });

  it('copies the target: type, category, breadcrumb and title as name', () => {
    for (const goal of goals) {
      const target = targetOf(goal);
      expect(goal.productType).toBe(target.productType);
      expect(goal.category).toBe(target.category);
      expect(goal.categoryPath).toEqual(target.categoryPath);
      expect(goal.name).toBe(target.title);
    }
  });

  it('wants 1–3 distinct attributes of the target, favouring those in its title or description', () => {
    let shown = 0;
    let wanted = 0;
    let shownOverall = 0;
    let overall = 0;
    for (const goal of goals) {
      const target = targetOf(goal);
      expect(goal.attributes.length).toBeGreaterThanOrEqual(1);
      expect(goal.attributes.length).toBeLessThanOrEqual(3);
      expect(new Set(goal.attributes).size).toBe(goal.attributes.length);
      for (const attribute of goal.attributes) expect(target.attributes).toContain(attribute);
      const text = `${target.title} ${target.description}`.toLowerCase();
      shown += goal.attributes.filter((a) => text.includes(a)).length;
      wanted += goal.attributes.length;
      shownOverall += target.attributes.filter((a) => text.includes(a)).length;
      overall += target.attributes.length;
    }
    expect(shown / wanted).toBeGreaterThan(shownOverall / overall + 0.1);
  });

  it('wants one value of some of the target option groups, and sometimes skips a group', () => {
    let skipped = 0;
    let asked = 0;
    for (const goal of goals) {
      const target = targetOf(goal);
      for (const [name, value] of Object.entries(goal.options)) {
        const group = target.options.find((g) => g.name === name);
        expect(group?.values).toContain(value);
      }
      asked += Object.keys(goal.options).length;
      skipped += target.options.length - Object.keys(goal.options).length;
    }
    expect(asked).toBeGreaterThan(0);
    expect(skipped).toBeGreaterThan(0);
    expect(skipped).toBeLessThan(asked);
  });

  it('sets a round budget at or above the target price', () => {
    for (const goal of goals) {
      const { price } = targetOf(goal);
      expect(goal.priceUpper).toBeGreaterThanOrEqual(price);
      expect(goal.priceUpper).toBeLessThanOrEqual(Math.max(price * 2.5 + 100, 10));
      expect(goal.priceUpper % 10).toBe(0);
    }
  });

  it('writes a lower-case instruction that quotes every wanted attribute, option value and the budget', () => {
    for (const goal of goals) {
      const { instruction } = goal;
      expect(instruction).toBe(instruction.toLowerCase());
      expect(instruction).toContain(goal.productType);
      for (const attribute of goal.attributes) expect(instruction).toContain(attribute);
      for (const value of Object.values(goal.options)) expect(instruction).toContain(value);
      expect(instruction).toContain(`${goal.priceUpper.toFixed(2)} dollars`);
    }
  });

  it('varies the phrasing', () => {
    const openings = new Set(goals.map((g) => g.instruction.split(' ').slice(0, 2).join(' ')));
    expect(openings.size).toBeGreaterThanOrEqual(8);
    const priced = (phrase: string) => goals.filter((g) => g.instruction.includes(phrase)).length;
    expect(priced('price lower than')).toBeGreaterThan(goals.length / 3);
    expect(priced(' under ')).toBeGreaterThan(0);
  });

  it('refuses an empty catalog', () => {
    expect(() => generateGoal([], new Rng(0))).toThrow(ConfigError);
  });
});

describe('budgetAbove', () => {
  it('rounds up to 10 under 200, 50 under 1000, else 100', () => {
    expect(budgetAbove(3.2)).toBe(10);
    expect(budgetAbove(31)).toBe(40);
    expect(budgetAbove(40)).toBe(40);
    expect(budgetAbove(199.5)).toBe(200);
    expect(budgetAbove(201)).toBe(250);
    expect(budgetAbove(1001)).toBe(1100);
  });
});

describe('webshopTask and webshopTasks', () => {
  it('builds task i deterministically with a stable id and a webshop spec', () => {
    const task = webshopTask(id, products, 42);
    expect(task).toEqual(webshopTask(id, products, 42));
    expect(task.id).toBe('webshop/5-1000/42');
    expect(task.env).toBe('webshop');
    expect(task.origin).toBe('seed');
    const spec = task.spec as unknown as WebShopTaskSpec;
    expect(spec.catalog).toEqual(id);
    expect(task.instruction).toBe(spec.goal.instruction);
    expect(webshopTask(id, products, 43).instruction).not.toBe(task.instruction);
  });

  it('draws different goals for another catalog seed', () => {
    const other = { seed: 6, size: 1000 };
    const a = webshopTasks(id, products, 'test', 20).map((t) => t.instruction);
    const b = webshopTasks(other, getCatalog(other), 'test', 20).map((t) => t.instruction);
    expect(a.filter((x, i) => x === b[i]).length).toBeLessThan(2);
  });

  it('splits test (indices 0–499) from train (500 on), disjoint and stable', () => {
    const test = webshopTasks(id, products, 'test');
    const train = webshopTasks(id, products, 'train');
    expect(test).toHaveLength(TEST_TASK_COUNT);
    expect(train).toHaveLength(DEFAULT_TRAIN_TASK_COUNT);
    expect(test[0]?.id).toBe('webshop/5-1000/0');
    expect(train[0]?.id).toBe(`webshop/5-1000/${TEST_TASK_COUNT}`);
    const testIds = new Set(test.map((t) => t.id));
    expect(testIds.size).toBe(TEST_TASK_COUNT);
    expect(train.some((t) => testIds.has(t.id))).toBe(false);
    expect(webshopTasks(id, products, 'test', 10)).toEqual(test.slice(0, 10));
    expect(webshopTasks(id, products, 'train', 1500).slice(0, 1000)).toEqual(train);
  });

  it('refuses a test split larger than 500, a wrong catalog and a bad index', () => {
    expect(() => webshopTasks(id, products, 'test', TEST_TASK_COUNT + 1)).toThrow(ConfigError);
    expect(() => webshopTask({ seed: 5, size: 999 }, products, 0)).toThrow(ConfigError);
    expect(() => webshopTask(id, products, -1)).toThrow(ConfigError);
    expect(() => webshopTask(id, products, 1.5)).toThrow(ConfigError);
  });
});
