import { describe, expect, it } from 'vitest';
import { RewardModel } from './reward-model.ts';

describe('RewardModel', () => {
  it('recovers a linear partial reward and calls clear successes 1', () => {
    // Partial rewards follow 0.2 + 0.5·x0 (below 1); x1 = 1 marks a full success (reward 1).
    const features: number[][] = [];
    const rewards: number[] = [];
    for (let i = 0; i < 60; i++) {
      const x0 = (i % 10) / 10;
      const success = i % 3 === 0 ? 1 : 0;
      features.push([x0, success]);
      rewards.push(success ? 1 : 0.2 + 0.5 * x0);
    }
    const model = RewardModel.fit(features, rewards, { ridge: 1e-6 });
    expect(model.predict([0.4, 1])).toBe(1);
    expect(model.predict([0.4, 0])).toBeLessThan(1);
    expect(model.trainMae).toBeLessThan(0.1);
    expect(model.samples).toBe(60);
  });

  it('gives the partial reward alone, below 1, where the classifier would call a success', () => {
    const features = Array(40).fill([0]) as number[][];
    const rewards = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? 0.5 : 1));
    const model = RewardModel.fit(features, rewards);
    expect(model.predict([0])).toBe(1);
    // The regression's mean reward of such purchases: 0.875.
    expect(model.partial([0])).toBeCloseTo(0.875, 2);
    expect(model.partial([100])).toBeLessThan(1);
    expect(RewardModel.fit([], []).partial([1])).toBe(0);
  });

  it('never predicts success when no success was seen, and stays in [0, 1)', () => {
    const model = RewardModel.fit([[0], [1], [2]], [0, 0.3, 0.6]);
    expect(model.successWeights).toBeUndefined();
    expect(model.predict([10])).toBeLessThan(1);
    expect(model.predict([-10])).toBeGreaterThanOrEqual(0);
  });

  it('balanced: the classifier does not carry the data’s success rate', () => {
    // x = 1: 8 successes; x = 0: 8 successes, 2 failures. Mostly successes either way, so an
    // unweighted classifier calls both a success; weighing the classes equally, x = 0 is not.
    const features = [...Array(8).fill([1]), ...Array(10).fill([0])] as number[][];
    const rewards = [...Array(16).fill(1), 0, 0];
    const plain = RewardModel.fit(features, rewards);
    const balanced = RewardModel.fit(features, rewards, { balanced: true });
    expect(plain.predict([0])).toBe(1);
    expect(balanced.predict([0])).toBeLessThan(1);
    expect(balanced.predict([1])).toBe(1);
  });

  it('predicts 0 without data', () => {
    expect(RewardModel.fit([], []).predict([1, 2])).toBe(0);
  });
});
