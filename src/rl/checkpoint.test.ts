import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { initTf, tf } from '../core/tf.ts';
import { restoreOptimizer, saveCheckpoint } from './checkpoint.ts';

beforeAll(() => initTf());

/** Adam on a small quadratic: `steps` updates of its own weights. */
function adamAfter(steps: number, from?: { optimizer: ReturnType<typeof tf.train.adam> }) {
  const optimizer = from?.optimizer ?? tf.train.adam(0.01);
  const w = tf.variable(tf.tensor1d([1, -2, 3]));
  const run = (n: number) => {
    for (let i = 0; i < n; i++)
      optimizer.minimize(() => tf.sum(tf.square(w)) as ReturnType<typeof tf.scalar>);
  };
  run(steps);
  return { optimizer, w, run };
}

describe('saveCheckpoint / restoreOptimizer', () => {
  it("restore Adam exactly, β powers included: the next updates match the uninterrupted run's bits", async () => {
    const straight = adamAfter(20);
    straight.run(5);

    const first = adamAfter(20);
    const dir = join(mkdtempSync(join(tmpdir(), 'dg-ckpt-')), 'checkpoint');
    const policy = { save: async () => {} } as never;
    await saveCheckpoint(dir, policy, first.optimizer, { iteration: 1 });
    const resumed = tf.train.adam(0.01);
    await restoreOptimizer(dir, resumed);
    // The resumed run continues from the same weights with the restored optimiser.
    const w = tf.variable(first.w.clone());
    for (let i = 0; i < 5; i++)
      resumed.minimize(() => tf.sum(tf.square(w)) as ReturnType<typeof tf.scalar>);

    expect(Array.from(w.dataSync())).toEqual(Array.from(straight.w.dataSync()));
  });
});
