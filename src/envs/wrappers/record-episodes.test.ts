import { describe, expect, it } from 'vitest';
import { EpisodeEndedError } from '../../core/errors.ts';
import type { Trajectory } from '../../core/types.ts';
import type { Env } from '../env.ts';
import { collectingSuccesses, RecordEpisodes } from './record-episodes.ts';
import { Corridor } from './testing/corridor.ts';
import { TimeLimit } from './time-limit.ts';

function recorded(env: (inner: Env) => Env, length = 3) {
  const episodes: Trajectory[] = [];
  const wrapped = new RecordEpisodes(env(new Corridor(length)), {
    provenance: 'synthetic',
    policyId: 'tester',
    onEpisode: (t) => {
      episodes.push(t);
    },
  });
  return { env: wrapped, episodes };
}

describe('RecordEpisodes', () => {
  it('records a terminated episode whole, with its seed and the steps’ reasoning', async () => {
    const { env, episodes } = recorded((inner) => new TimeLimit(inner, 10), 2);
    await env.reset({ seed: 7 });
    await env.step('forward');
    expect(episodes).toHaveLength(0);
    await env.step('forward');
    expect(episodes).toHaveLength(1);
    const [episode] = episodes as [Trajectory];
    expect(episode).toMatchObject({
      env: 'corridor',
      provenance: 'synthetic',
      policyId: 'tester',
      seed: 7,
      initial: { text: 'cell 0' },
    });
    expect(episode.steps.map((s) => [s.action, s.observation.text, s.reward])).toEqual([
      ['forward', 'cell 1', 0],
      ['forward', 'cell 2', 1],
    ]);
    expect(episode.steps.at(-1)?.terminated).toBe(true);
    expect(episode.steps[0]?.reasoning).toBe('moved to 1');
  });

  it('records an episode the step limit cut off, outside TimeLimit, with the reason', async () => {
    const { env, episodes } = recorded((inner) => new TimeLimit(inner, 3), 10);
    await env.reset();
    for (const action of ['forward', 'wait', 'forward']) await env.step(action);
    expect(episodes).toHaveLength(1);
    const last = episodes[0]?.steps.at(-1);
    expect(last).toMatchObject({ truncated: true, terminated: false });
    expect(last?.info?.truncatedBy).toBe('time-limit');
    expect(episodes[0]?.steps).toHaveLength(3);
  });

  it('records an episode the env cut short (a model error) and none abandoned by a reset', async () => {
    const { env, episodes } = recorded((inner) => new TimeLimit(inner, 10), 10);
    await env.reset();
    await env.step('forward');
    await env.reset(); // abandoned: not an ended episode
    await env.step('forward');
    await env.step('fail');
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.steps.map((s) => s.action)).toEqual(['forward', 'fail']);
    expect(episodes[0]?.steps.at(-1)?.info?.truncatedBy).toBe('model-error');
    // Stepping on after the end is the inner env's error, and records nothing more.
    await expect(env.step('forward')).rejects.toBeInstanceOf(EpisodeEndedError);
    expect(episodes).toHaveLength(1);
  });
});

describe('collectingSuccesses', () => {
  it('keeps the successes of every env it makes, and only those', async () => {
    const successes: Trajectory[] = [];
    const makeEnv = collectingSuccesses(
      () => new TimeLimit(new Corridor(2), 2),
      successes,
      'synthetic',
    );
    const won = makeEnv();
    await won.reset({ seed: 1 });
    await won.step('forward');
    await won.step('forward');
    const cut = makeEnv();
    await cut.reset({ seed: 2 });
    await cut.step('wait');
    await cut.step('wait');
    expect(successes).toHaveLength(1);
    expect(successes[0]).toMatchObject({ provenance: 'synthetic', seed: 1 });
  });
});

describe('collectingSuccesses', () => {
  /** The corridor, saying its episodes started from a recorded state when reset with `from`. */
  const branching = (): Env => {
    const corridor = new Corridor(1);
    return {
      name: corridor.name,
      reset: async (options) => {
        const result = await corridor.reset();
        return options?.from
          ? { ...result, info: { ...result.info, branchedFrom: options.from } }
          : result;
      },
      step: (action) => corridor.step(action),
      close: () => corridor.close(),
    };
  };

  it('keeps the successes of episodes from the start, not of branched ones', async () => {
    const successes: Trajectory[] = [];
    const env = collectingSuccesses(branching, successes, 'synthetic')();
    await env.reset({ from: { trajectory: 'real-1', step: 3 } });
    await env.step('forward');
    expect(successes).toHaveLength(0);
    await env.reset({ seed: 1 });
    await env.step('forward');
    expect(successes).toHaveLength(1);
  });
});
