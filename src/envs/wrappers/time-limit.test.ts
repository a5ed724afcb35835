import { describe, expect, it } from 'vitest';
import { EpisodeEndedError } from '../../core/errors.ts';
import type { Env, ResetResult, StepResult } from '../env.ts';
import { TimeLimit } from './time-limit.ts';

/** A corridor: `forward` moves one cell; reaching cell `length` terminates with reward 1. */
class Corridor implements Env {
  readonly name = 'corridor';
  private position = 0;
  constructor(private readonly length: number) {}
  async reset(): Promise<ResetResult> {
    this.position = 0;
    const task = { id: 'c', env: this.name, instruction: 'walk', origin: 'seed' as const };
    return { observation: this.observation(), info: { task } };
  }
  async step(action: string): Promise<StepResult> {
    if (action === 'forward') this.position += 1;
    const done = this.position >= this.length;
    return {
      observation: this.observation(),
      reward: done ? 1 : 0,
      terminated: done,
      truncated: false,
      info: action === 'forward' ? {} : { invalidAction: 'only forward' },
    };
  }
  async close(): Promise<void> {}
  private observation() {
    return { text: `cell ${this.position}`, instruction: 'walk', actions: ['forward'] };
  }
}

describe('TimeLimit', () => {
  it('truncates on the step that reaches the limit and says why', async () => {
    const env = new TimeLimit(new Corridor(10), 3);
    await env.reset();
    expect((await env.step('forward')).truncated).toBe(false);
    expect((await env.step('wait')).truncated).toBe(false);
    const third = await env.step('forward');
    expect(third.truncated).toBe(true);
    expect(third.terminated).toBe(false);
    expect(third.info.truncatedBy).toBe('time-limit');
    await expect(env.step('forward')).rejects.toBeInstanceOf(EpisodeEndedError);
  });

  it('lets termination on the last allowed step win over truncation', async () => {
    const env = new TimeLimit(new Corridor(2), 2);
    await env.reset();
    await env.step('forward');
    const last = await env.step('forward');
    expect(last.terminated).toBe(true);
    expect(last.truncated).toBe(false);
    expect(last.info.truncatedBy).toBeUndefined();
  });

  it('restarts its count on reset', async () => {
    const env = new TimeLimit(new Corridor(10), 2);
    await env.reset();
    await env.step('forward');
    await env.reset();
    expect((await env.step('forward')).truncated).toBe(false);
    expect((await env.step('forward')).truncated).toBe(true);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new TimeLimit(new Corridor(1), 0)).toThrow(/positive integer/);
    expect(() => new TimeLimit(new Corridor(1), 1.5)).toThrow(/positive integer/);
  });
});
