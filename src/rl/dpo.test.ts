import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { initTf, type Tensor1D, tf, type Variable } from '../core/tf.ts';
import type { Observation } from '../core/types.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { directPreferenceOptimization, dpoLoss, NoPreferencePairsError } from './dpo.ts';
import type { PreferencePair } from './preference-pairs.ts';

beforeAll(() => initTf());

const ACTIONS = ['a', 'b', 'c'];

/** A state-blind softmax over three actions: log π(x) = logits[x] − logsumexp(logits). */
class SoftmaxPolicy implements TrainablePolicy {
  readonly id = 'softmax';
  readonly logits: Variable = tf.variable(tf.tensor1d([0, 0, 0]));
  async act() {
    return { action: 'a' };
  }
  evaluate(decisions: readonly RecordedDecision[]) {
    const oneHot = tf.tensor2d(
      decisions.map((d) => ACTIONS.map((a) => (a === d.action ? 1 : 0))),
      [decisions.length, ACTIONS.length],
    );
    const logP = tf.logSoftmax(this.logits);
    const logProbs = tf.sum(tf.mul(oneHot, logP), 1) as Tensor1D;
    const zeros = tf.zeros([decisions.length]) as Tensor1D;
    return { logProbs, entropy: zeros, values: zeros };
  }
  get variables() {
    return [this.logits];
  }
  async save() {}
  logProb(action: string): number {
    return tf.tidy(() => tf.logSoftmax(this.logits).dataSync()[ACTIONS.indexOf(action)] as number);
  }
}

const observation: Observation = { text: 'a room', instruction: 'pick', actions: ACTIONS };
const pair = (chosen: string, rejected: string): PreferencePair => ({
  decision: { observation, history: [] },
  chosen,
  rejected,
  taskId: 't',
  episodeId: 'e',
  step: 0,
  source: 'expert',
});

describe('dpoLoss', () => {
  it('matches the hand-derived loss and gradient on one pair', () => {
    // β = 0.1; log πθ(w) = −1, log πθ(l) = −2, log πref(w) = log πref(l) = −1.5.
    // margin z = (−1 − (−1.5)) − (−2 − (−1.5)) = 0.5 + 0.5 = 1, so βz = 0.1.
    // loss = −log σ(0.1) = log(1 + e^−0.1) = log(1.904837418) = 0.644396660.
    // ∂loss/∂log πθ(w) = −β σ(−βz) = −0.1 · 0.475020813 = −0.0475020813; ∂/∂log πθ(l) = +0.0475020813.
    const chosen = tf.variable(tf.tensor1d([-1]));
    const rejected = tf.variable(tf.tensor1d([-2]));
    const reference = { chosen: tf.tensor1d([-1.5]), rejected: tf.tensor1d([-1.5]) };
    const { value, grads } = tf.variableGrads(
      () => dpoLoss({ chosen, rejected }, reference, 0.1).loss as ReturnType<typeof tf.scalar>,
      [chosen, rejected],
    );
    expect(value.dataSync()[0]).toBeCloseTo(0.64439666, 6);
    expect(grads[chosen.name]?.dataSync()[0]).toBeCloseTo(-0.0475020813, 6);
    expect(grads[rejected.name]?.dataSync()[0]).toBeCloseTo(0.0475020813, 6);
    const out = dpoLoss({ chosen, rejected }, reference, 0.1);
    expect(out.margin.dataSync()[0]).toBeCloseTo(1, 6);
    expect(out.accuracy.dataSync()[0]).toBe(1);
  });

  it('is log 2 when the policy equals the reference, and stays finite far from it', () => {
    const same = { chosen: tf.tensor1d([-1, -3]), rejected: tf.tensor1d([-2, -0.5]) };
    expect(dpoLoss(same, same, 0.1).loss.dataSync()[0]).toBeCloseTo(Math.LN2, 6);
    const far = { chosen: tf.tensor1d([-1e4]), rejected: tf.tensor1d([0]) };
    const zero = { chosen: tf.tensor1d([0]), rejected: tf.tensor1d([0]) };
    expect(dpoLoss(far, zero, 1).loss.dataSync()[0]).toBeCloseTo(1e4, 0);
  });
});

describe('directPreferenceOptimization', () => {
  it('raises the chosen-vs-rejected margin over the reference it started from', () => {
    const policy = new SoftmaxPolicy();
    const pairs = [
      ...Array.from({ length: 8 }, () => pair('a', 'b')),
      ...Array.from({ length: 8 }, () => pair('a', 'c')),
    ];
    const before = policy.logProb('a') - policy.logProb('b');
    const result = directPreferenceOptimization(policy, pairs, {
      learningRate: 0.05,
      patience: 3,
      epochs: 40,
      minibatchSize: 4,
    });
    expect(policy.logProb('a') - policy.logProb('b')).toBeGreaterThan(before + 1);
    expect(policy.logProb('a') - policy.logProb('c')).toBeGreaterThan(before + 1);
    expect(result.pairs + (result.validation?.pairs ?? 0)).toBe(16);
    expect(result.validation?.best.accuracy).toBe(1);
    expect(result.validation?.best.loss).toBeLessThan(Math.LN2);
  });

  it('keeps the weights of the epoch with the lowest held-out loss', () => {
    // Two opposite pairs, one trained on and one held out: every epoch fits the held-out pair
    // worse, so the first epoch is the best and training stops `patience` epochs after it.
    const policy = new SoftmaxPolicy();
    const result = directPreferenceOptimization(policy, [pair('a', 'b'), pair('b', 'a')], {
      validationShare: 0.5,
      learningRate: 0.05,
      patience: 4,
    });
    const validation = result.validation;
    expect(validation?.pairs).toBe(1);
    expect(validation?.bestEpoch).toBe(1);
    expect(validation?.curve).toHaveLength(5);
    const heldOut = validation?.curve.map((c) => c.loss) ?? [];
    expect(heldOut).toEqual([...heldOut].sort((x, y) => x - y));
    expect(validation?.best.accuracy).toBe(0);
    // The policy holds epoch 1's weights: one Adam step of 0.05 moved each logit by about 0.05.
    expect(Math.abs(policy.logProb('a') - policy.logProb('b'))).toBeLessThan(0.15);
  });

  it('moves a choice policy toward the chosen actions of its own candidates', () => {
    const doors = ['open red door', 'open blue door', 'open green door'];
    const pairsOf = (door: string, wrong: string): PreferencePair => ({
      decision: {
        observation: {
          text: 'Three doors.',
          instruction: `Open the ${door} door.`,
          actions: doors,
        },
        history: [],
      },
      chosen: `open ${door} door`,
      rejected: `open ${wrong} door`,
      taskId: door,
      episodeId: door,
      step: 0,
      source: 'expert',
    });
    const pairs = ['red', 'blue', 'green'].flatMap((door) =>
      ['red', 'blue', 'green'].filter((w) => w !== door).map((wrong) => pairsOf(door, wrong)),
    );
    const policy = new ChoicePolicy({ family: 'doors', seed: 2 });
    const margin = () =>
      tf.tidy(() => {
        const chosen = policy.evaluate(pairs.map((p) => ({ ...p.decision, action: p.chosen })));
        const rejected = policy.evaluate(pairs.map((p) => ({ ...p.decision, action: p.rejected })));
        return tf.mean(tf.sub(chosen.logProbs, rejected.logProbs)).dataSync()[0] as number;
      });
    const before = margin();
    directPreferenceOptimization(policy, pairs, { validationShare: 0, epochs: 30, beta: 0.5 });
    expect(margin()).toBeGreaterThan(before + 0.5);
    policy.dispose();
  });

  it('refuses no pairs, a β that is not positive and a validation share of 1, naming the fix', () => {
    const policy = new SoftmaxPolicy();
    expect(() => directPreferenceOptimization(policy, [])).toThrow(NoPreferencePairsError);
    expect(() => directPreferenceOptimization(policy, [])).toThrow(/expert/);
    expect(() => directPreferenceOptimization(policy, [pair('a', 'b')], { beta: 0 })).toThrow(
      ConfigError,
    );
    expect(() =>
      directPreferenceOptimization(policy, [pair('a', 'b')], { validationShare: 1 }),
    ).toThrow(/0 trains a fixed number of epochs/);
  });

  it('warns and trains fixed epochs when one pair leaves none to hold out', () => {
    const policy = new SoftmaxPolicy();
    const result = directPreferenceOptimization(policy, [pair('a', 'b')], { learningRate: 0.1 });
    expect(result.epochs).toBe(8);
    expect(result.warnings[0]).toMatch(/none left to hold out/);
    expect(policy.logProb('a')).toBeGreaterThan(policy.logProb('b'));
  });
});
