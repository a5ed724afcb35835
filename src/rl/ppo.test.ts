import { beforeAll, describe, expect, it } from 'vitest';
import { initTf, type Tensor, type Tensor1D, tf } from '../core/tf.ts';
import { ppoLoss } from './ppo.ts';

beforeAll(() => initTf());

/** d(policy loss)/d(logProb) for one sample with the given old log-prob gap and advantage. */
function gradient(logRatio: number, advantage: number, clip = 0.2): number {
  const grad = tf.grad(
    (logProbs: Tensor) =>
      ppoLoss(
        {
          logProbs: logProbs as Tensor1D,
          oldLogProbs: tf.tensor1d([0]),
          advantages: tf.tensor1d([advantage]),
          values: tf.tensor1d([0]),
          returns: tf.tensor1d([0]),
          entropy: tf.tensor1d([0]),
        },
        { clip, valueCoef: 0, entropyCoef: 0 },
      ).loss,
  );
  return grad(tf.tensor1d([logRatio])).dataSync()[0] as number;
}

describe('ppoLoss', () => {
  it('pushes probability up for positive advantages and down for negative ones', () => {
    // At ratio 1 the gradient of −A·r w.r.t. log π is −A.
    expect(gradient(0, 2)).toBeCloseTo(-2, 5);
    expect(gradient(0, -2)).toBeCloseTo(2, 5);
  });

  it('stops the gradient once the ratio is clipped in the advantage direction', () => {
    expect(gradient(Math.log(1.5), 1)).toBeCloseTo(0, 6);
    expect(gradient(Math.log(0.5), -1)).toBeCloseTo(0, 6);
    // Clipping is pessimistic only: moving back toward the old policy keeps its gradient.
    expect(gradient(Math.log(1.5), -1)).toBeCloseTo(1.5, 5);
    expect(gradient(Math.log(0.5), 1)).toBeCloseTo(-0.5, 5);
  });

  it('reports value loss, entropy, approximate KL and clip fraction', async () => {
    const out = ppoLoss(
      {
        logProbs: tf.tensor1d([Math.log(1.5), 0, Math.log(0.9)]),
        oldLogProbs: tf.tensor1d([0, 0, 0]),
        advantages: tf.tensor1d([1, 1, 1]),
        values: tf.tensor1d([1, 0, 2]),
        returns: tf.tensor1d([0, 0, 0]),
        entropy: tf.tensor1d([0.3, 0.6, 0.9]),
      },
      { clip: 0.2 },
    );
    expect((await out.valueLoss.data())[0]).toBeCloseTo((0.5 * (1 + 0 + 4)) / 3, 5);
    expect((await out.entropy.data())[0]).toBeCloseTo(0.6, 5);
    expect((await out.clipFraction.data())[0]).toBeCloseTo(1 / 3, 5);
    const kl = (0.5 - Math.log(1.5) + (-0.1 - Math.log(0.9))) / 3;
    expect((await out.approxKl.data())[0]).toBeCloseTo(kl, 5);
  });

  it("adds β times GRPO's k3 estimate of KL(π_θ ‖ π_ref), with its gradient towards π_ref", async () => {
    // π_θ(a) = 0.5, π_ref(a) = 0.25: k3 = 0.25/0.5 − log(0.25/0.5) − 1 = log 2 − 0.5.
    const inputs = (logProbs: Tensor) => ({
      logProbs: logProbs as Tensor1D,
      oldLogProbs: tf.tensor1d([Math.log(0.5)]),
      advantages: tf.tensor1d([0]),
      values: tf.tensor1d([0]),
      returns: tf.tensor1d([0]),
      entropy: tf.tensor1d([0]),
      refLogProbs: tf.tensor1d([Math.log(0.25)]),
    });
    const options = { valueCoef: 0, entropyCoef: 0, klCoef: 0.1 };
    const out = ppoLoss(inputs(tf.tensor1d([Math.log(0.5)])), options);
    expect((await out.refKl.data())[0]).toBeCloseTo(Math.log(2) - 0.5, 5);
    expect((await out.loss.data())[0]).toBeCloseTo(0.1 * (Math.log(2) - 0.5), 5);
    // d k3 / d log π_θ = 1 − π_ref/π_θ = 0.5: the loss falls as π_θ(a) moves down towards π_ref.
    const grad = tf.grad((l: Tensor) => ppoLoss(inputs(l), options).loss);
    expect(grad(tf.tensor1d([Math.log(0.5)])).dataSync()[0]).toBeCloseTo(0.1 * 0.5, 5);
    // No penalty and no gradient where π_θ = π_ref.
    expect(grad(tf.tensor1d([Math.log(0.25)])).dataSync()[0]).toBeCloseTo(0, 6);
    const none = ppoLoss({ ...inputs(tf.tensor1d([Math.log(0.5)])), refLogProbs: undefined }, {});
    expect((await none.refKl.data())[0]).toBe(0);
    expect(() =>
      ppoLoss({ ...inputs(tf.tensor1d([0])), refLogProbs: undefined }, { klCoef: 0.1 }),
    ).toThrow(/refLogProbs/);
  });
});
