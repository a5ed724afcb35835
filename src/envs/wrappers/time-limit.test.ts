import { describe, expect, it } from 'vitest';
import { EpisodeEndedError } from '../../core/errors.ts';
import { Corridor } from './testing/corridor.ts';
import { TimeLimit } from './time-limit.ts';

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
