import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { initTf, type Tensor2D, tf } from '../../core/tf.ts';
import { inputMatMul } from './network.ts';

beforeAll(() => initTf());

/** Sparse features as a policy's rows look (most inputs zero), and weights. */
function operands(rows: number, inputs: number, outputs: number) {
  const rng = new Rng(3);
  const x = Float32Array.from({ length: rows * inputs }, () =>
    rng.float() < 0.3 ? rng.float() * 2 - 1 : 0,
  );
  const w = Float32Array.from({ length: inputs * outputs }, () => rng.float() - 0.5);
  return { x: tf.tensor2d(x, [rows, inputs]), w: tf.variable(tf.tensor2d(w, [inputs, outputs])) };
}

describe('inputMatMul', () => {
  it('computes inputs · weights exactly as matMul does, and the same weight gradient', () => {
    const { x, w } = operands(300, 40, 16);
    const upstream = tf.randomNormal([300, 16], 0, 1, 'float32', 7) as Tensor2D;
    const loss = (product: (a: Tensor2D, b: Tensor2D) => Tensor2D) => () =>
      tf.sum(tf.mul(product(x, w as unknown as Tensor2D), upstream)) as ReturnType<
        typeof tf.scalar
      >;
    expect(Array.from(inputMatMul(x, w as unknown as Tensor2D).dataSync())).toEqual(
      Array.from(tf.matMul(x, w).dataSync()),
    );
    const ours = tf.variableGrads(loss(inputMatMul), [w]).grads[w.name] as Tensor2D;
    const plain = tf.variableGrads(
      loss((a, b) => tf.matMul(a, b)),
      [w],
    ).grads[w.name] as Tensor2D;
    expect(ours.shape).toEqual([40, 16]);
    const a = ours.dataSync();
    const b = plain.dataSync();
    let worst = 0;
    for (let i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    }
    // The sums run in another order: equal up to float rounding, and not all zero.
    expect(worst).toBeLessThan(1e-4);
    expect(Math.max(...Array.from(a, Math.abs))).toBeGreaterThan(0.1);
  });
});
