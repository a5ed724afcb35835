import { describe, expect, it } from 'vitest';
import { TaskError } from '../core/errors.ts';
import type { Observation, Step, Task, Trajectory } from '../core/types.ts';
import type { Env, ResetOptions } from '../envs/env.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { replayInReal, replayRecorded, teacherForced } from './fidelity.ts';

const task = (id: string, kind: string): Task => ({
  id,
  env: 'toy',
  instruction: `solve ${id}`,
  spec: { kind },
  origin: 'seed',
});
const page = (text: string): Observation => ({ text, instruction: '' });

/** The real toy env: `press [right]` then `stop []` succeeds; `stop []` alone fails; 3 steps at most. */
class ToyEnv implements Env {
  readonly name = 'toy';
  readonly resets: ResetOptions[] = [];
  private pressed = false;
  private steps = 0;

  async reset(options: ResetOptions = {}) {
    if (options.task?.spec === undefined)
      throw new TaskError(`task ${options.task?.id} has no spec: only a synthetic env can run it.`);
    this.resets.push(options);
    this.pressed = false;
    this.steps = 0;
    return { observation: page('start'), info: { task: options.task as Task } };
  }

  async step(action: string) {
    this.steps++;
    if (action === 'press [right]') this.pressed = true;
    const stop = action === 'stop []';
    return {
      observation: page(this.pressed ? 'pressed' : 'start'),
      reward: stop && this.pressed ? 1 : 0,
      terminated: stop,
      truncated: !stop && this.steps >= 3,
      info: {},
    };
  }

  async close() {}
}

/** A synthetic episode: the actions, and the synthetic env's final reward and ending. */
function episode(
  t: Task,
  actions: string[],
  reward: number,
  ending: 'terminated' | 'truncated' = 'terminated',
): Trajectory {
  const steps: Step[] = actions.map((action, i) => {
    const last = i === actions.length - 1;
    return {
      action,
      observation: page('synthetic'),
      reward: last ? reward : 0,
      terminated: last && ending === 'terminated',
      truncated: last && ending === 'truncated',
    };
  });
  return {
    id: `${t.id}-${actions.length}`,
    env: 'toy',
    task: t,
    initial: page('start'),
    steps,
    provenance: 'synthetic',
    policyId: 'test',
    seed: 7,
    startedAt: new Date(0).toISOString(),
    endedAt: new Date(0).toISOString(),
  };
}

describe('replayInReal', () => {
  it('confirms the synthetic successes whose very actions succeed for real, by kind', async () => {
    const a = task('a', 'change');
    const b = task('b', 'information');
    const real = new ToyEnv();
    const report = await replayInReal({
      trajectories: [
        episode(a, ['press [right]', 'stop []'], 1), // confirmed
        episode(a, ['stop []'], 1), // a false positive: the real env wanted the press
        episode(b, ['press [right]', 'stop []'], 0), // missed: the real env rewards it
        episode(b, ['press [wrong]', 'stop []'], 0), // a true failure
        // Synthetic success after the real env's step limit: the real episode ended unrewarded.
        episode(b, ['look', 'look', 'look', 'press [right]', 'stop []'], 1),
      ],
      realEnv: real,
      kindOf: (t) => String(t.spec?.kind),
    });
    expect(report).toMatchObject({
      episodes: 5,
      syntheticSuccesses: 3,
      confirmed: 1,
      missed: 1,
      unreplayable: 0,
    });
    expect(report.falsePositiveShare).toBeCloseTo(2 / 3);
    expect(report.byKind?.change).toEqual({
      episodes: 2,
      syntheticSuccesses: 2,
      confirmed: 1,
      falsePositiveShare: 0.5,
      missed: 0,
    });
    expect(report.byKind?.information).toMatchObject({ syntheticSuccesses: 1, missed: 1 });
    // Every replay starts the episode's own task from the episode's own seed.
    expect(real.resets.map((r) => [r.task?.id, r.seed])).toEqual([
      ['a', 7],
      ['a', 7],
      ['b', 7],
      ['b', 7],
      ['b', 7],
    ]);
  });

  it('counts a truncated synthetic episode as no success, and gives no kinds without kindOf', async () => {
    const a = task('a', 'change');
    const report = await replayInReal({
      trajectories: [episode(a, ['press [right]', 'stop []'], 1, 'truncated')],
      realEnv: new ToyEnv(),
    });
    expect(report).toEqual({
      episodes: 1,
      syntheticSuccesses: 0,
      confirmed: 0,
      falsePositiveShare: 0,
      missed: 1,
      generated: 0,
      unreplayable: 0,
    });
  });
});

describe('replayRecorded', () => {
  it('replays recorded episodes, counting apart those whose task the real env cannot build', async () => {
    const a = task('a', 'change');
    // The LLM task generator's tasks have no spec; the offline mutators' variations keep one.
    const written: Task = { id: 'g', env: 'toy', instruction: 'a variation', origin: 'generated' };
    const varied: Task = { ...task('v', 'change'), origin: 'generated', parentId: 'a' };
    const report = await replayRecorded({
      trajectories: [
        episode(a, ['press [right]', 'stop []'], 1), // confirmed
        episode(a, ['stop []'], 1), // a false positive
        episode(a, ['look'], 0, 'truncated'), // abandoned by its trainer: no success either side
        episode(written, ['stop []'], 1), // no spec to replay it on
        episode(varied, ['press [right]', 'stop []'], 1), // replayed, and confirmed
      ],
      realEnv: new ToyEnv(),
    });
    expect(report.episodes).toBe(5);
    // As the recording env paid them: 4 successes of 5.
    expect(report.recorded.successRate).toBe(0.8);
    expect(report.replayed).toEqual({
      episodes: 4,
      syntheticSuccesses: 3,
      confirmed: 2,
      falsePositiveShare: expect.closeTo(1 / 3),
      missed: 0,
      generated: 1,
      unreplayable: 1,
    });
  });
});

describe('teacherForced', () => {
  /** A real episode: a step that changes nothing, one that changes the page, then the ending. */
  const real: Trajectory = {
    id: 'real-1',
    env: 'toy',
    task: task('t1', 'a'),
    initial: page('start'),
    steps: [
      {
        action: 'look',
        observation: page('start'),
        reward: 0,
        terminated: false,
        truncated: false,
      },
      {
        action: 'press [right]',
        observation: page('pressed'),
        reward: 0,
        terminated: false,
        truncated: false,
      },
      {
        action: 'stop []',
        observation: page('done'),
        reward: 1,
        terminated: true,
        truncated: false,
      },
    ],
    provenance: 'real-offline',
    policyId: 'expert',
    startedAt: '2026-11-29T00:00:00.000Z',
    endedAt: '2026-11-29T00:00:01.000Z',
  };
  /** Predicts "nothing changes, no reward", sure of itself only where that is so. */
  const lazy: ExperienceModel = {
    id: 'lazy',
    initial: async () => page('start'),
    predict: async ({ state, action }) => ({
      reasoning: 'nothing changes',
      nextState: state,
      reward: 0,
      terminated: false,
      uncertainty: action === 'look' ? 0 : 0.8,
    }),
  };

  it("splits Lemma 1's errors by whether the real step changed the state, and pairs them with the model's doubt", async () => {
    const forced = await teacherForced({
      model: lazy,
      buffer: SqliteReplayBuffer.open(),
      trajectories: [real],
      k: 0,
    });
    expect(forced.transitions).toBe(3);
    expect(forced.byChange.unchanged).toMatchObject({
      transitions: 1,
      exactMatch: 1,
      rewardMae: 0,
    });
    expect(forced.byChange.changed).toMatchObject({
      transitions: 2,
      exactMatch: 0,
      rewardMae: 0.5,
    });
    expect(forced.uncertainty).toEqual({ whenRight: 0, whenWrong: 0.8, predictions: 3 });
  });
});
