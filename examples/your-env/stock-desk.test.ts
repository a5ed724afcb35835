// The example env as its author would test it: dreamgym's Env conformance suite, and its expert.
import { collect, isSuccess } from 'dreamgym';
import { runEnvConformance } from 'dreamgym/testing';
import { describe, expect, it } from 'vitest';
import stockDesk from './stock-desk.ts';

runEnvConformance(
  { name: 'stock-desk', makeEnv: () => stockDesk.make({}), invalidAction: 'sell[everything]' },
  { describe, it },
);

describe('the stock desk expert', () => {
  const successRate = async (epsilon: number) => {
    const expert = stockDesk.expert?.({ epsilon });
    if (!expert) throw new Error('the example exports an expert');
    const env = stockDesk.make({});
    try {
      const episodes = await collect({
        env,
        policy: expert,
        tasks: stockDesk.tasks({}).tasks('train', 60),
        episodes: 60,
        seed: 1,
        provenance: 'real-offline',
      });
      return episodes.filter(isSuccess).length / episodes.length;
    } finally {
      await env.close();
    }
  };

  it('solves every task without mistakes, and fewer with them', async () => {
    expect(await successRate(0)).toBe(1);
    const noisy = await successRate(0.3);
    expect(noisy).toBeGreaterThan(0.2);
    expect(noisy).toBeLessThan(0.9);
  });
});
