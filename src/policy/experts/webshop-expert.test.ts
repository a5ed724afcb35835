import { describe, expect, it } from 'vitest';
import { summarize } from '../../data/summary.ts';
import { getCatalog } from '../../envs/webshop/catalog.ts';
import { webshopTasks } from '../../envs/webshop/goals.ts';
import { makeWebShop } from '../../envs/webshop/webshop-env.ts';
import { collect } from '../../rl/collect.ts';
import { WebShopExpert } from './webshop-expert.ts';

const catalog = { seed: 0, size: 1000 };
const tasks = webshopTasks(catalog, getCatalog(catalog), 'test', 200);

const run = (epsilon: number, seed: number) =>
  collect({
    env: makeWebShop({ catalog }),
    policy: new WebShopExpert({ epsilon }),
    tasks,
    episodes: tasks.length,
    seed,
    provenance: 'real-offline',
  });

describe('WebShopExpert', () => {
  it('buys the right product with the right options on ≥ 95% of test tasks at ε = 0', async () => {
    const trajectories = await run(0, 1);
    const summary = summarize(trajectories);
    expect(summary.successRate).toBeGreaterThanOrEqual(0.95);
    expect(summary.invalidActionRate).toBe(0);
  });

  it('makes realistic mistakes at ε = 0.3: successes and failures both appear', async () => {
    const trajectories = await run(0.3, 1);
    const summary = summarize(trajectories);
    expect(summary.successRate).toBeGreaterThan(0.2);
    expect(summary.successRate).toBeLessThan(0.9);
    const failures = trajectories.filter((t) => (t.steps.at(-1)?.reward ?? 0) < 1);
    const kinds = new Set(failures.flatMap((t) => t.steps.map((s) => s.reasoning ?? '')));
    expect([...kinds].some((k) => k.includes('noise'))).toBe(true);
    // Partial credit: some failures still buy a close match.
    expect(failures.some((t) => (t.steps.at(-1)?.reward ?? 0) > 0)).toBe(true);
  });

  it('is deterministic given the seed', async () => {
    const strip = (ts: Awaited<ReturnType<typeof run>>) =>
      ts.map((t) => t.steps.map((s) => s.action));
    expect(strip(await run(0.3, 7))).toEqual(strip(await run(0.3, 7)));
    expect(strip(await run(0.3, 7))).not.toEqual(strip(await run(0.3, 8)));
  });

  it('refuses an epsilon outside [0, 1]', () => {
    expect(() => new WebShopExpert({ epsilon: 1.5 })).toThrow(/epsilon/);
  });
});
