import type { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { PoolView } from './generator.ts';

/** One way to vary a parent, tagged with its kind (`attributes`, `budget`, `object`, …). */
export interface Candidate<C> {
  kind: string;
  change: C;
}

/**
 * Up to `count` tasks built from candidate changes, spread over their kinds: each pick takes a
 * random kind with candidates left, then a random candidate of that kind, so a kind with many
 * candidates (attribute subsets) does not crowd out one with few (budgets). Tasks the pool already
 * holds, or that an earlier pick already gave, are skipped.
 */
export function takeVaried<C>(
  candidates: ReadonlyArray<Candidate<C>>,
  count: number,
  build: (change: C) => Task,
  pool: PoolView,
  rng: Rng,
): Task[] {
  const byKind = new Map<string, C[]>();
  for (const { kind, change } of candidates)
    byKind.set(kind, [...(byKind.get(kind) ?? []), change]);
  const taken: Task[] = [];
  const ids = new Set<string>();
  while (taken.length < count && byKind.size > 0) {
    const kind = rng.pick([...byKind.keys()]);
    const left = byKind.get(kind) as C[];
    const [change] = left.splice(rng.int(left.length), 1) as [C];
    if (left.length === 0) byKind.delete(kind);
    const task = build(change);
    if (ids.has(task.id) || pool.isDuplicate(task)) continue;
    ids.add(task.id);
    taken.push(task);
  }
  return taken;
}
