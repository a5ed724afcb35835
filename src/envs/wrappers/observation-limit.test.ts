import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OBSERVATION_CHARS } from '../../core/observation-limit.ts';
import type { Env, ResetResult, StepResult } from '../env.ts';
import { ObservationLimit } from './observation-limit.ts';

/** An env that shows back what it is told: the action as the observation and as `info.echo`. */
class Echo implements Env {
  readonly name = 'echo';
  closed = false;
  constructor(private readonly opening: string) {}
  async reset(): Promise<ResetResult> {
    const task = { id: 'e', env: this.name, instruction: 'say', origin: 'seed' as const };
    return {
      observation: { text: this.opening, instruction: 'say', actions: ['say'] },
      info: { task },
    };
  }
  async step(action: string): Promise<StepResult> {
    return {
      observation: { text: action, instruction: 'say', actions: ['say'] },
      reward: 0,
      terminated: false,
      truncated: false,
      info: { echo: action, count: 1 },
    };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('ObservationLimit', () => {
  it('keeps the first max characters of a longer observation, marks the cut and says so in info', async () => {
    const env = new ObservationLimit(new Echo('short'), 100);
    const reset = await env.reset();
    expect(reset.observation.text).toBe('short');
    expect(reset.info).not.toHaveProperty('clipped');
    const long = 'x'.repeat(4_000_000);
    const step = await env.step(long);
    expect(step.observation.text).toBe(
      `${'x'.repeat(100)}\n[clipped: the first 100 of 4,000,000 characters]`,
    );
    expect(step.observation.actions).toEqual(['say']);
    expect(step.info.echo).toBe(
      `${'x'.repeat(100)}\n[clipped: the first 100 of 4,000,000 characters]`,
    );
    expect(step.info.count).toBe(1);
    expect(step.info.clipped).toBe(
      'the observation (4,000,000 characters) and info.echo (4,000,000 characters) were over the limit of 100 characters (--max-observation-chars): each keeps its first 100',
    );
    expect((await env.step('y'.repeat(100))).info).not.toHaveProperty('clipped');
  });

  it('clips a reset too, keeps the task whole, and closes the env it wraps', async () => {
    const inner = new Echo('z'.repeat(30_000));
    const env = new ObservationLimit(inner);
    const reset = await env.reset();
    expect(reset.observation.text.startsWith('z'.repeat(DEFAULT_MAX_OBSERVATION_CHARS))).toBe(true);
    expect(reset.observation.text.length).toBeLessThan(DEFAULT_MAX_OBSERVATION_CHARS + 60);
    expect(reset.info.task.id).toBe('e');
    expect(reset.info.clipped).toMatch(
      /^the observation \(30,000 characters\) was over the limit of 20,000/,
    );
    expect(env.name).toBe('echo');
    await env.close();
    expect(inner.closed).toBe(true);
  });

  it('refuses a limit that is not a whole number of at least 1', () => {
    expect(() => new ObservationLimit(new Echo(''), 0)).toThrow(
      'the observation limit is a whole number of characters, at least 1 (--max-observation-chars), got 0.',
    );
  });
});
