import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { initTf, tf, type Variable } from '../core/tf.ts';
import type { Observation, Trajectory } from '../core/types.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { behaviourCloning, decisionsOf, fitWithValidation } from './bc.ts';
import { bcUpdate } from './update.ts';

beforeAll(() => initTf());

/**
 * A one-weight policy whose log-probability of a decision is −(w − t)², t read from its action
 * (`t=3`): training on one target while validating on another has a best epoch in between.
 */
class TargetPolicy implements TrainablePolicy {
  readonly id = 'target';
  readonly w: Variable = tf.variable(tf.scalar(0));
  async act() {
    return { action: 't=0' };
  }
  evaluate(decisions: readonly RecordedDecision[]) {
    const targets = tf.tensor1d(decisions.map((d) => Number(d.action.slice(2))));
    const logProbs = tf.neg(tf.square(tf.sub(this.w, targets))) as ReturnType<typeof tf.tensor1d>;
    const zeros = tf.zeros([decisions.length]) as ReturnType<typeof tf.tensor1d>;
    return { logProbs, entropy: zeros, values: zeros };
  }
  get variables() {
    return [this.w];
  }
  async save() {}
}

const observation: Observation = { text: 'a page', instruction: 'do it', actions: ['t=0'] };
const decision = (action: string): RecordedDecision => ({ observation, history: [], action });

describe('behaviour cloning with early stopping', () => {
  it('keeps the weights of the epoch that fits the validation split best, and stops after it', () => {
    const policy = new TargetPolicy();
    const train = Array.from({ length: 8 }, () => decision('t=10'));
    const validation = [decision('t=3')];
    const optimizer = tf.train.adam(0.1);
    const fit = fitWithValidation(policy, optimizer, train, validation, {
      maxEpochs: 500,
      patience: 5,
      minibatchSize: 4,
      seed: 0,
    });
    const nlls = fit.curve.map((c) => c.nll);
    // The held-out fit improves, then worsens as w passes 3 on its way to 10.
    expect(fit.best.epoch).toBeGreaterThan(1);
    expect(fit.best.nll).toBe(Math.min(...nlls));
    expect(fit.curve.at(-1)?.nll).toBeGreaterThan(fit.best.nll);
    expect(fit.curve).toHaveLength(fit.best.epoch + 5);
    // The policy holds the best epoch's weights, not the last epoch's.
    const w = policy.w.dataSync()[0] as number;
    expect((w - 3) ** 2).toBeCloseTo(fit.best.nll, 5);
    expect(w).toBeGreaterThan(2);
    expect(w).toBeLessThan(4);
    optimizer.dispose();
  });
});

/** Episodes of a two-room task: the right door is the one the instruction names. */
function episodes(n: number): Trajectory[] {
  const rng = new Rng(7);
  return Array.from({ length: n }, (_, i) => {
    const door = rng.pick(['red', 'blue', 'green']);
    const instruction = `Open the ${door} door.`;
    const actions = ['open red door', 'open blue door', 'open green door'];
    return {
      id: `t${i}`,
      task: { id: `task/${i}`, env: 'doors', instruction, origin: 'seed' },
      initial: { text: 'Three doors: red, blue, green.', instruction, actions },
      steps: [
        {
          action: `open ${door} door`,
          observation: { text: 'It opens.', instruction, actions: [] },
          reward: 1,
          terminated: true,
          truncated: false,
        },
      ],
      provenance: 'real-offline',
      policyId: 'expert',
    } as unknown as Trajectory;
  });
}

describe('behaviourCloning', () => {
  it('holds out a share of the trajectories and reports the epoch it kept', () => {
    const policy = new ChoicePolicy({ family: 'doors', seed: 1 });
    const fit = behaviourCloning(policy, episodes(20), { seed: 3, patience: 3, epochs: 60 });
    expect(fit.validation?.trajectories).toBe(4);
    expect(fit.trajectories).toBe(16);
    const curve = fit.validation?.curve ?? [];
    expect(fit.validation?.nll).toBe(Math.min(...curve.map((c) => c.nll)));
    expect(fit.epochs === 60 || fit.epochs === (fit.validation?.bestEpoch ?? 0) + 3).toBe(true);
    expect(fit.warnings).toEqual([]);
    policy.dispose();
  });

  it('trains a fixed number of epochs on everything with no validation split, as before', () => {
    const data = episodes(10);
    const fixed = new ChoicePolicy({ family: 'doors', seed: 1 });
    const reference = fixed.copy();
    const fit = behaviourCloning(fixed, data, { validationShare: 0, seed: 2 });
    const optimizer = tf.train.adam(1e-3);
    bcUpdate(reference, optimizer, decisionsOf(data), { epochs: 8, seed: 2 });
    optimizer.dispose();
    expect(fit.epochs).toBe(8);
    expect(fit.validation).toBeUndefined();
    const weights = (p: ChoicePolicy) => p.variables.map((v) => Array.from(v.dataSync()));
    expect(weights(fixed)).toEqual(weights(reference));
  });

  it('warns and trains the fixed epochs when one trajectory leaves none to hold out', () => {
    const policy = new ChoicePolicy({ family: 'doors', seed: 1 });
    const fit = behaviourCloning(policy, episodes(1), { seed: 0 });
    expect(fit.epochs).toBe(8);
    expect(fit.warnings[0]).toMatch(/none left to hold out/);
    expect(() => behaviourCloning(policy, episodes(3), { validationShare: 1 })).toThrow(
      ConfigError,
    );
    policy.dispose();
  });
});
