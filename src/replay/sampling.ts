import { Rng } from '../core/rng.ts';
import type { Provenance } from '../core/types.ts';
import type { StoredTransition } from './stored-transition.ts';
import type { TransitionStore } from './transition-store.ts';

const REAL: readonly Provenance[] = ['real-offline', 'real-online'];

/** How `sample` draws: the share of real transitions, recency weighting, the env and the random stream. */
export interface SampleOptions {
  /** Share of real transitions (real-offline and real-online) in the sample; default: as stored. */
  realShare?: number;
  /** Newer transitions weigh more: a transition this many places older has half the weight. */
  recencyHalfLife?: number;
  env?: string;
  /** Random stream; default seeded with 0. */
  rng?: Rng;
}

/**
 * Draws transitions from the buffer for training on stored experience: with replacement, with a
 * real/synthetic mix and recency weighting. Keeps per-env pools of transition ids, oldest first,
 * grown incrementally as transitions are added (they are never deleted).
 */
export class TransitionSampler {
  private readonly byEnv = new Map<string, { real: number[]; synthetic: number[]; upTo: number }>();

  constructor(private readonly store: TransitionStore) {}

  /** `n` transitions drawn with replacement, with a real/synthetic mix and recency weighting. */
  sample(n: number, options: SampleOptions = {}): StoredTransition[] {
    const ids = drawIds(this.pools(options.env), n, options);
    const byId = new Map(this.store.fetch([...new Set(ids)]).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) as StoredTransition);
  }

  private pools(env: string | undefined) {
    const key = env ?? '*';
    let pools = this.byEnv.get(key);
    if (!pools) {
      pools = { real: [], synthetic: [], upTo: 0 };
      this.byEnv.set(key, pools);
    }
    const rows = this.store.db
      .prepare(
        `SELECT tr.rowid AS id, tr.provenance FROM transitions tr JOIN trajectories j ON j.rowid = tr.trajectory
         WHERE tr.rowid > ? AND (? IS NULL OR j.env = ?) ORDER BY tr.rowid`,
      )
      .raw()
      .all(pools.upTo, env ?? null, env ?? null) as Array<[number, Provenance]>;
    for (const [id, provenance] of rows) {
      (REAL.includes(provenance) ? pools.real : pools.synthetic).push(id);
      pools.upTo = id;
    }
    return pools;
  }
}

/**
 * An index into a pool ordered oldest → newest: uniform without a half-life, else the age (places
 * from the newest) is drawn from an exponential distribution truncated to the pool.
 */
function pickIndex(length: number, halfLife: number | undefined, rng: Rng): number {
  if (halfLife === undefined) return rng.int(length);
  const rate = Math.LN2 / halfLife;
  const tail = 1 - Math.exp(-rate * length);
  const age = Math.min(length - 1, Math.floor(-Math.log(1 - rng.float() * tail) / rate));
  return length - 1 - age;
}

/**
 * Transition ids drawn with replacement from pools of real and synthetic ids (oldest first):
 * `realShare` of them real (default: as stored), newer ones weighted by `recencyHalfLife`.
 */
export function drawIds(
  pools: { real: readonly number[]; synthetic: readonly number[] },
  n: number,
  options: SampleOptions,
): number[] {
  const rng = options.rng ?? new Rng(0);
  const total = pools.real.length + pools.synthetic.length;
  const realShare = options.realShare ?? (total === 0 ? 1 : pools.real.length / total);
  if (!(realShare >= 0 && realShare <= 1))
    throw new RangeError(`sample: realShare must be in [0, 1], got ${realShare}`);
  if (total === 0 || n <= 0) return [];
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    let pool = rng.chance(realShare) ? pools.real : pools.synthetic;
    if (pool.length === 0) pool = pool === pools.real ? pools.synthetic : pools.real;
    ids.push(pool[pickIndex(pool.length, options.recencyHalfLife, rng)] as number);
  }
  return ids;
}
