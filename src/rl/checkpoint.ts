import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tf, type Variable } from '../core/tf.ts';
import type { TrainablePolicy } from '../policy/policy.ts';

type Optimizer = ReturnType<typeof tf.train.adam>;

interface SavedOptimizer {
  /** The optimiser's weights in its own order (iterations first, then its slots by position). */
  weights: Array<{ shape: number[]; values: number[] }>;
  /**
   * Adam's running powers β₁ᵗ and β₂ᵗ. `setWeights` would recompute them as β^(t+1) with `pow`,
   * which differs in the last float32 bits from the product accumulated step by step (from the
   * 8th step on): a resumed run's first update would then differ from the uninterrupted run's.
   */
  accBeta?: [number, number];
}

/** Adam's bias-correction accumulators, which tfjs keeps outside `getWeights`. */
interface AdamAccumulators {
  accBeta1?: Variable;
  accBeta2?: Variable;
}

/**
 * Writes a checkpoint atomically: everything goes into `<dir>.partial`, which then replaces `dir`
 * (the previous checkpoint is moved aside first and removed last), so a crash leaves either the
 * old checkpoint or the new one, never half of each.
 */
export async function saveCheckpoint(
  dir: string,
  policy: TrainablePolicy,
  optimizer: Optimizer,
  state: Record<string, unknown>,
): Promise<void> {
  const partial = `${dir}.partial`;
  const old = `${dir}.old`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  await policy.save(partial);
  const weights = await optimizer.getWeights();
  const { accBeta1, accBeta2 } = optimizer as unknown as AdamAccumulators;
  const saved: SavedOptimizer = {
    weights: weights.map((w) => ({
      shape: w.tensor.shape,
      values: Array.from(w.tensor.dataSync()),
    })),
    ...(accBeta1 &&
      accBeta2 && {
        accBeta: [accBeta1.dataSync()[0] as number, accBeta2.dataSync()[0] as number],
      }),
  };
  await writeFile(join(partial, 'optimizer.json'), JSON.stringify(saved));
  await writeFile(join(partial, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  await rm(old, { recursive: true, force: true });
  if (existsSync(dir)) await rename(dir, old);
  await rename(partial, dir);
  await rm(old, { recursive: true, force: true });
}

/**
 * The last complete checkpoint of `dir`: `dir` itself, or `<dir>.old` when a crash between
 * {@link saveCheckpoint}'s two renames left only that; undefined when there is none.
 */
export function completeCheckpoint(dir: string): string | undefined {
  for (const candidate of [dir, `${dir}.old`]) {
    if (existsSync(join(candidate, 'state.json'))) return candidate;
  }
  return undefined;
}

/** The state saved with a checkpoint, or undefined when there is none. */
export async function readCheckpointState<T>(dir: string): Promise<T | undefined> {
  const file = join(dir, 'state.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Restores the optimiser's moments, step count and Adam's β powers saved by {@link saveCheckpoint}. */
export async function restoreOptimizer(dir: string, optimizer: Optimizer): Promise<void> {
  const saved = JSON.parse(await readFile(join(dir, 'optimizer.json'), 'utf8')) as SavedOptimizer;
  if (saved.weights.length === 0) return;
  await optimizer.setWeights(
    saved.weights.map((w, i) => ({ name: `restored-${i}`, tensor: tf.tensor(w.values, w.shape) })),
  );
  const { accBeta1, accBeta2 } = optimizer as unknown as AdamAccumulators;
  if (saved.accBeta && accBeta1 && accBeta2) {
    accBeta1.assign(tf.scalar(saved.accBeta[0]));
    accBeta2.assign(tf.scalar(saved.accBeta[1]));
  }
}

/** Rewrites a `metrics.jsonl` keeping only the lines of iterations before `iteration`. */
export async function keepMetricsBefore(file: string, iteration: number): Promise<void> {
  if (!existsSync(file)) return;
  const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const kept = lines.filter((line) => {
    try {
      const { iteration: at } = JSON.parse(line) as { iteration?: number };
      return typeof at === 'number' && at < iteration;
    } catch {
      return false;
    }
  });
  if (kept.length === lines.length) return;
  await writeFile(`${file}.partial`, kept.map((line) => `${line}\n`).join(''));
  await rename(`${file}.partial`, file);
}
