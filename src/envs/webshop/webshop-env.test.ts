import { describe, expect, it } from 'vitest';
import { TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { WebShopExpert } from '../../policy/experts/webshop-expert.ts';
import { runEnvConformance } from '../conformance.ts';
import { getCatalog } from './catalog.ts';
import { webshopSpec, webshopTasks } from './goals.ts';
import { makeWebShop, WebShopEnv } from './webshop-env.ts';

const catalog = { seed: 0, size: 1000 };
const testTasks = webshopTasks(catalog, getCatalog(catalog), 'test', 20);
const expert = new WebShopExpert();

runEnvConformance(
  {
    name: 'webshop',
    makeEnv: () => makeWebShop({ catalog }),
    task: testTasks[0],
    invalidAction: 'click[Buy Now]',
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'webshop without step limit, driven by the expert',
    makeEnv: () => new WebShopEnv({ catalog }),
    solve: async (observation, task, history) =>
      (await expert.act(observation, { task, history, rng: new Rng(0) })).action,
    maxSteps: 30,
  },
  { describe, it },
);

const goalOf = (i: number) => webshopSpec(testTasks[i] as Task).goal;

describe('webshop pages and actions', () => {
  it('renders the search page with the instruction and a search template', async () => {
    const env = new WebShopEnv({ catalog });
    const { observation } = await env.reset({ task: testTasks[0] });
    expect(observation.text).toContain('[Search]');
    expect(observation.text).toContain(goalOf(0).instruction);
    expect(observation.actions).toEqual(['search[<query>]']);
  });

  it('shows 10 results a page with the WebShop header and pages through them', async () => {
    const env = new WebShopEnv({ catalog });
    await env.reset({ task: testTasks[0] });
    const results = await env.step(`search[${goalOf(0).productType}]`);
    const lines = results.observation.text.split('\n');
    expect(lines[0]).toBe('[Back to Search]');
    expect(lines[1]).toMatch(/^Page 1 \(Total results: \d+\)$/);
    const total = Number(/Total results: (\d+)/.exec(results.observation.text)?.[1]);
    expect(total).toBeGreaterThan(10);
    expect(total).toBeLessThanOrEqual(50);
    const asins = results.observation.actions?.filter((a) => /^click\[B0[A-Z0-9]{8}\]$/.test(a));
    expect(asins).toHaveLength(10);
    expect(results.observation.text).toMatch(/\n\[B0[A-Z0-9]{8}\]\n.+\n\$\d+\.\d\d/);
    expect(results.observation.actions).toContain('click[Next >]');
    expect(results.observation.actions).not.toContain('click[< Prev]');
    const page2 = await env.step('click[next >]');
    expect(page2.observation.text).toContain('Page 2 (Total results:');
    expect(page2.observation.actions).toContain('click[< Prev]');
    const back = await env.step('click[< Prev]');
    expect(back.observation).toEqual(results.observation);
  });

  it('item page lists option groups, price and buttons; option clicks are acknowledged', async () => {
    const env = new WebShopEnv({ catalog });
    const index = testTasks.findIndex((t) => Object.keys(webshopSpec(t).goal.options).length > 0);
    const goal = goalOf(index);
    await env.reset({ task: testTasks[index] });
    await env.step(`search[${goal.name}]`);
    const item = await env.step(`click[${goal.asin}]`);
    const product = env.products.find((p) => p.asin === goal.asin);
    expect(product).toBeDefined();
    expect(item.observation.text).toContain(product?.title);
    expect(item.observation.text).toContain(`Price: $${product?.price.toFixed(2)}`);
    for (const group of product?.options ?? []) {
      expect(item.observation.text).toContain(
        `${group.name} ${group.values.map((v) => `[${v}]`).join('')}`,
      );
    }
    for (const label of ['Description', 'Features', 'Buy Now', 'Back to Search', '< Prev']) {
      expect(item.observation.actions).toContain(`click[${label}]`);
    }
    const value = Object.values(goal.options)[0] as string;
    const clicked = await env.step(`click[${value}]`);
    expect(clicked.observation.text.startsWith(`You have clicked ${value}.`)).toBe(true);
    const description = await env.step('click[Description]');
    expect(description.observation.text).toContain(product?.description);
    const features = await env.step('click[< Prev]').then(() => env.step('click[Features]'));
    expect(features.observation.text).toContain(product?.features[0]);
  });

  it('buying ends the episode with the reward breakdown in info', async () => {
    const env = new WebShopEnv({ catalog });
    const goal = goalOf(1);
    await env.reset({ task: testTasks[1] });
    await env.step(`search[${goal.name}]`);
    await env.step(`click[${goal.asin}]`);
    for (const value of Object.values(goal.options)) await env.step(`click[${value}]`);
    const bought = await env.step('click[Buy Now]');
    expect(bought.terminated).toBe(true);
    expect(bought.truncated).toBe(false);
    expect(bought.reward).toBe(1);
    expect(bought.info).toMatchObject({ asin: goal.asin, rType: 1, rPrice: 1 });
    expect(bought.observation.text).toContain('Thank you for shopping with us!');
  });

  it('rejects search off the search page and unknown buttons without changing the page', async () => {
    const env = new WebShopEnv({ catalog });
    await env.reset({ task: testTasks[0] });
    const results = await env.step('search[shoes]');
    const searchAgain = await env.step('search[shoes]');
    expect(searchAgain.info.invalidAction).toMatch(/search page/);
    expect(searchAgain.observation).toEqual(results.observation);
    const ghost = await env.step('click[Nowhere]');
    expect(ghost.info.invalidAction).toMatch(/no \[Nowhere\]/);
    const empty = await env.step('click[Back to Search]').then(() => env.step('search[  ]'));
    expect(empty.info.invalidAction).toMatch(/needs a query/);
  });

  it('truncates at the 15-step limit', async () => {
    const env = makeWebShop({ catalog });
    await env.reset({ seed: 0 });
    let last: Awaited<ReturnType<typeof env.step>> | undefined;
    for (let i = 0; i < 15; i++) last = await env.step('click[nothing]');
    expect(last?.truncated).toBe(true);
    expect(last?.terminated).toBe(false);
    expect(last?.info.truncatedBy).toBe('time-limit');
  });

  it('refuses tasks from another env or another catalog, naming the fix', async () => {
    const env = new WebShopEnv({ catalog });
    const task = testTasks[0];
    if (!task) throw new Error('no task');
    await expect(env.reset({ task: { ...task, env: 'household' } })).rejects.toBeInstanceOf(
      TaskError,
    );
    const other = new WebShopEnv({ catalog: { seed: 1, size: 1000 } });
    await expect(other.reset({ task })).rejects.toThrow(
      /create the env with catalog \{ seed: 0, size: 1000 \}/,
    );
    await expect(env.reset({ task: { ...task, spec: undefined } })).rejects.toThrow(
      /synthetic env/,
    );
  });
});
