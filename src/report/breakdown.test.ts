import { describe, expect, it } from 'vitest';
import { envSetup } from '../pipeline/experiment.ts';
import { makePolicy } from '../policy/registry.ts';
import { collect } from '../rl/collect.ts';
import { breakdownTable, decisionBreakdown, judgeFor } from './breakdown.ts';

const play = async (env: string, policy: string, episodes: number) => {
  const setup = envSetup(env, { testTasks: episodes });
  const real = setup.makeReal();
  try {
    return await collect({
      env: real,
      policy: makePolicy(policy, { env }),
      tasks: setup.testTasks,
      episodes,
      seed: 3,
      provenance: 'real-online',
    });
  } finally {
    await real.close();
  }
};

describe('per-decision breakdown against the expert', () => {
  it('finds no error in the expert’s own webshop episodes', async () => {
    const b = await decisionBreakdown(
      await play('webshop', 'expert', 10),
      makePolicy('expert', { env: 'webshop' }),
      judgeFor('webshop') as NonNullable<ReturnType<typeof judgeFor>>,
    );
    const kinds = Object.fromEntries(b.rows.map((r) => [r.kind, r]));
    expect(kinds['search query']?.decisions).toBeGreaterThanOrEqual(10);
    expect(kinds['buy now']?.agreed).toBe(kinds['buy now']?.decisions);
    expect(kinds['item choice']?.agreed).toBe(kinds['item choice']?.decisions);
    expect(b.rows.reduce((s, r) => s + r.firstErrors, 0)).toBe(0);
  });

  it('puts the first error of each failed random episode under one kind', async () => {
    const trajectories = await play('household', 'random', 4);
    const b = await decisionBreakdown(
      trajectories,
      makePolicy('expert', { env: 'household' }),
      judgeFor('household') as NonNullable<ReturnType<typeof judgeFor>>,
    );
    expect(b.failures).toBe(4);
    expect(b.rows.reduce((s, r) => s + r.firstErrors, 0)).toBe(4);
    expect(b.rows.reduce((s, r) => s + r.decisions, 0)).toBe(
      trajectories.reduce((s, t) => s + t.steps.length, 0),
    );
    expect(breakdownTable(b)).toContain('| go to |');
  });

  it('has judges for the built-in envs only', () => {
    expect(judgeFor('webshop')).toBeDefined();
    expect(judgeFor('agentgym:webshop@http://x')).toBeUndefined();
  });
});
