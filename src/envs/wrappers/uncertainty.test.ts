import { describe, expect, it } from 'vitest';
import type { Env, ResetResult, StepResult } from '../env.ts';
import { TimeLimit } from './time-limit.ts';
import { UncertaintyHalt } from './uncertainty-halt.ts';
import { UncertaintyPenalty } from './uncertainty-penalty.ts';

/**
 * A synthetic env's steps as a script: `go 0.2` is a step of uncertainty 0.2, `end 0.1` ends the
 * episode with reward 1 at uncertainty 0.1, `go` alone carries no uncertainty.
 */
class Doubting implements Env {
  readonly name = 'doubting';
  async reset(): Promise<ResetResult> {
    const task = { id: 't', env: this.name, instruction: 'walk', origin: 'seed' as const };
    return { observation: { text: 'start', instruction: 'walk' }, info: { task } };
  }
  async step(action: string): Promise<StepResult> {
    const [verb, u] = action.split(' ');
    const end = verb === 'end';
    return {
      observation: { text: action, instruction: 'walk' },
      reward: end ? 1 : 0,
      terminated: end,
      truncated: false,
      info: u === undefined ? {} : { uncertainty: Number(u) },
    };
  }
  async close(): Promise<void> {}
}

async function play(env: Env, actions: string[]): Promise<StepResult[]> {
  await env.reset();
  const out: StepResult[] = [];
  for (const action of actions) {
    const result = await env.step(action);
    out.push(result);
    if (result.terminated || result.truncated) break;
  }
  return out;
}

describe('UncertaintyPenalty', () => {
  it("takes λ times the episode's summed uncertainty from the ending step's reward", async () => {
    const steps = await play(new UncertaintyPenalty(new Doubting(), 0.5), [
      'go 0.2',
      'go',
      'go 0.4',
      'end 0.2',
    ]);
    expect(steps.slice(0, 3).map((s) => s.reward)).toEqual([0, 0, 0]);
    expect(steps[3]?.reward).toBeCloseTo(1 - 0.5 * 0.8, 12);
    expect(steps[3]?.info.uncertaintyPenalty).toBeCloseTo(0.4, 12);
  });

  it('starts each episode afresh, and leaves certain episodes and λ = 0 alone', async () => {
    const env = new UncertaintyPenalty(new Doubting(), 1);
    await play(env, ['go 0.9', 'end 0.9']);
    const certain = await play(env, ['go 0', 'end 0']);
    expect(certain[1]?.reward).toBe(1);
    expect(certain[1]?.info.uncertaintyPenalty).toBeUndefined();
    const off = await play(new UncertaintyPenalty(new Doubting(), 0), ['go 1', 'end 1']);
    expect(off[1]?.reward).toBe(1);
  });

  it('charges an episode the step limit cuts off, from outside the limit', async () => {
    const env = new UncertaintyPenalty(new TimeLimit(new Doubting(), 2), 1);
    const steps = await play(env, ['go 0.3', 'go 0.3']);
    expect(steps[1]).toMatchObject({ truncated: true });
    expect(steps[1]?.reward).toBeCloseTo(-0.6, 12);
  });

  it('refuses a negative weight', () => {
    expect(() => new UncertaintyPenalty(new Doubting(), -1)).toThrow(/0 or more, got -1/);
  });
});

describe('UncertaintyHalt', () => {
  it('ends the episode unjudged at the first step over τ, scoring it 0', async () => {
    const steps = await play(new UncertaintyHalt(new Doubting(), 0.5), [
      'go 0.5',
      'go 0.7',
      'end 0',
    ]);
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ terminated: false });
    expect(steps[1]).toMatchObject({ reward: 0, terminated: true, truncated: false });
    expect(steps[1]?.info).toMatchObject({ unjudged: true, uncertainty: 0.7 });
    expect(String(steps[1]?.info.halted)).toMatch(/uncertainty 0.7 over 0.5/);
  });

  it('takes away a reward the model was too unsure of, and passes steps that say nothing', async () => {
    const doubtful = await play(new UncertaintyHalt(new Doubting(), 0.5), ['end 0.9']);
    expect(doubtful[0]).toMatchObject({ reward: 0, terminated: true, info: { unjudged: true } });
    const silent = await play(new UncertaintyHalt(new Doubting(), 0), ['go', 'end']);
    expect(silent.map((s) => s.reward)).toEqual([0, 1]);
    expect(silent[1]?.info.unjudged).toBeUndefined();
  });

  it('refuses a threshold outside [0, 1]', () => {
    expect(() => new UncertaintyHalt(new Doubting(), 1.5)).toThrow(/in \[0, 1\], got 1.5/);
  });
});
