import type { Provenance, Trajectory } from '../../core/types.ts';
import { getCatalog } from '../../envs/webshop/catalog.ts';
import { webshopTasks } from '../../envs/webshop/goals.ts';
import { makeWebShop } from '../../envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../../policy/experts/webshop-expert.ts';
import { collect } from '../../rl/collect.ts';

/** Real webshop trajectories from the noisy expert: a mix of successes and failures. */
export async function webshopTrajectories(episodes: number, seed = 1): Promise<Trajectory[]> {
  const catalog = { seed: 0, size: 1000 };
  return collect({
    env: makeWebShop({ catalog }),
    policy: new WebShopExpert({ epsilon: 0.3 }),
    tasks: webshopTasks(catalog, getCatalog(catalog), 'train', episodes),
    episodes,
    seed,
    provenance: 'real-offline',
  });
}

/** Copies of trajectories under new ids and another provenance. */
export function relabel(
  trajectories: readonly Trajectory[],
  provenance: Provenance,
  tag: string,
): Trajectory[] {
  return trajectories.map((t) => ({ ...t, id: `${tag}-${t.id}`, provenance }));
}

/** Everything an async iterable yields, in order (`Array.fromAsync` arrived after Node 20). */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
