import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { budgetOf } from '../../core/text.ts';
import type { Task } from '../../core/types.ts';
import { getCatalog } from '../../envs/webshop/catalog.ts';
import { webshopSpec } from '../../envs/webshop/goals.ts';
import { webshopReward } from '../../envs/webshop/reward.ts';
import type { Goal, Product } from '../../envs/webshop/types.ts';
import { makeWebShop, WebShopEnv } from '../../envs/webshop/webshop-env.ts';
import { isRealizable } from '../realizable.ts';
import { SqliteTaskPool } from '../sqlite-task-pool.ts';
import { webshopMutator } from './webshop-mutator.ts';

const shop = new WebShopEnv();
const seeds = shop.tasks('train', 400);
const products = new Map<string, Product>(getCatalog(shop.catalogId).map((p) => [p.asin, p]));
const goalOf = (task: Task): Goal => webshopSpec(task).goal;

/** Mutates every parent `count` times into the pool, as the curriculum would. */
async function mutateAll(
  pool: SqliteTaskPool,
  parents: readonly Task[],
  count: number,
): Promise<Task[]> {
  const out: Task[] = [];
  for (const parent of parents) {
    const { tasks, warnings } = await webshopMutator.generate({
      parent,
      count,
      pool,
      rng: new Rng(1).fork(parent.id),
    });
    expect(warnings).toEqual([]);
    out.push(...(await pool.add(tasks, 1)));
  }
  return out;
}

describe('webshopMutator', () => {
  it('makes hundreds of variations, two generations deep, that the real webshop runs and the target product meets in full', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const first = await mutateAll(pool, seeds, 3);
    const second = await mutateAll(pool, first.slice(0, 200), 2);
    const mutated = [...first, ...second];
    expect(mutated.length).toBeGreaterThan(1400);

    const env = makeWebShop();
    for (const task of mutated) {
      expect(isRealizable(task)).toBe(true);
      const { observation } = await env.reset({ task });
      expect(observation.instruction).toBe(task.instruction);
      const goal = goalOf(task);
      expect(goal.instruction).toBe(task.instruction);
      const target = products.get(goal.asin) as Product;
      expect(webshopReward(target, goal, goal.options).reward).toBe(1);
    }
  });

  it('uses only what the pool\u2019s goals for the same product say: attributes, option values, budgets', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const known = new Map<
      string,
      { attributes: Set<string>; options: Set<string>; budget: number }
    >();
    for (const seed of seeds) {
      const goal = goalOf(seed);
      const facts = known.get(goal.asin) ?? {
        attributes: new Set(),
        options: new Set(),
        budget: Infinity,
      };
      for (const a of goal.attributes) facts.attributes.add(a);
      for (const [g, v] of Object.entries(goal.options)) facts.options.add(`${g}=${v}`);
      facts.budget = Math.min(facts.budget, goal.priceUpper);
      known.set(goal.asin, facts);
    }
    const mutated = await mutateAll(pool, seeds, 3);
    let addedFromSiblings = 0;
    for (const task of mutated) {
      const goal = goalOf(task);
      const parent = goalOf(pool.get(task.parentId as string)?.task as Task);
      const facts = known.get(goal.asin);
      for (const a of goal.attributes) expect(facts?.attributes.has(a)).toBe(true);
      for (const [g, v] of Object.entries(goal.options))
        expect(facts?.options.has(`${g}=${v}`)).toBe(true);
      expect(goal.priceUpper).toBeGreaterThanOrEqual(facts?.budget as number);
      if (goal.attributes.some((a) => !parent.attributes.includes(a))) addedFromSiblings++;
      expect({ ...goal, attributes: [], options: {}, priceUpper: 0, instruction: '' }).toEqual({
        ...parent,
        attributes: [],
        options: {},
        priceUpper: 0,
        instruction: '',
      });
    }
    expect(addedFromSiblings).toBeGreaterThan(0);
  });

  it('changes one thing at a time, every kind of change occurs, and the wording quotes the goal', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const kinds = { attributes: 0, options: 0, budget: 0 };
    for (const task of await mutateAll(pool, seeds, 3)) {
      const goal = goalOf(task);
      const parent = goalOf(pool.get(task.parentId as string)?.task as Task);
      const changed = {
        attributes: [...goal.attributes].sort().join() !== [...parent.attributes].sort().join(),
        options: JSON.stringify(goal.options) !== JSON.stringify(parent.options),
        budget: goal.priceUpper !== parent.priceUpper,
      };
      expect(Object.values(changed).filter(Boolean)).toHaveLength(1);
      for (const kind of ['attributes', 'options', 'budget'] as const)
        if (changed[kind]) kinds[kind]++;
      expect(goal.attributes.length).toBeGreaterThanOrEqual(1);
      expect(goal.attributes.length).toBeLessThanOrEqual(3);
      for (const text of [goal.productType, ...goal.attributes, ...Object.values(goal.options)]) {
        expect(task.instruction).toContain(text);
      }
      expect(budgetOf(task.instruction)).toBe(goal.priceUpper);
    }
    expect(kinds.attributes).toBeGreaterThan(100);
    expect(kinds.options).toBeGreaterThan(100);
    expect(kinds.budget).toBeGreaterThan(100);
  });

  it('is reproducible given the random stream, and never repeats a pooled task', async () => {
    const run = async () => {
      const pool = SqliteTaskPool.open();
      await pool.add(seeds);
      return mutateAll(pool, seeds.slice(0, 50), 4);
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    expect(new Set(a.map((t) => t.id)).size).toBe(a.length);
  });

  it('leaves tasks without a webshop spec alone, with a warning', async () => {
    const pool = SqliteTaskPool.open();
    const parent: Task = {
      id: 'w/1',
      env: 'webshop',
      instruction: 'find me a mug',
      origin: 'generated',
    };
    const result = await webshopMutator.generate({ parent, count: 3, pool, rng: new Rng(0) });
    expect(result.tasks).toEqual([]);
    expect(result.warnings[0]).toMatch(/^webshop-mutator: task w\/1 has no webshop spec/);
  });

  it('never loads the catalog: nothing it imports reaches catalog.ts or the search index', () => {
    const reached = importsOf(
      resolve(dirname(fileURLToPath(import.meta.url)), 'webshop-mutator.ts'),
    );
    expect([...reached].some((f) => f.endsWith('envs/webshop/goals.ts'))).toBe(true);
    expect(
      [...reached].filter((f) => /envs\/webshop\/(catalog|search|webshop-env)\.ts$/.test(f)),
    ).toEqual([]);
  });
});

/** Every module reached from `file` through relative imports, type-only ones included. */
function importsOf(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, path] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
    importsOf(resolve(dirname(file), path as string), seen);
  }
  return seen;
}
