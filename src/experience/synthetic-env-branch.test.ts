import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskError } from '../core/errors.ts';
import type { Observation, Step, Task, Trajectory } from '../core/types.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import type { ExperienceModel, ExperienceRequest } from './experience-model.ts';
import { llmFreeModel } from './llm-free.ts';
import { SyntheticEnv } from './synthetic-env.ts';

const TASK: Task = { id: 'desk/7', env: 'desk', instruction: 'close ticket T-7', origin: 'seed' };
const page = (text: string): Observation => ({ text, instruction: TASK.instruction });
const step = (action: string, text: string, terminated = false): Step => ({
  action,
  observation: page(text),
  reward: terminated ? 1 : 0,
  terminated,
  truncated: false,
});

/** A real episode of three steps, the last of which ended it. */
const REAL: Trajectory = {
  id: 'real-7',
  env: 'desk',
  task: TASK,
  initial: page('inbox: T-7 open'),
  steps: [
    step('open[T-7]', 'T-7: printer jam'),
    step('reply[fixed]', 'T-7: replied'),
    step('close[T-7]', 'T-7 closed', true),
  ],
  provenance: 'real-offline',
  policyId: 'expert',
  startedAt: '2026-11-29T00:00:00.000Z',
  endedAt: '2026-11-29T00:00:01.000Z',
};

/** A model that answers every step alike and keeps what it was asked. */
function recordingModel(): ExperienceModel & { asked: ExperienceRequest[] } {
  const asked: ExperienceRequest[] = [];
  return {
    id: 'recording',
    asked,
    initial: async () => page('a made-up start'),
    predict: async (request) => {
      asked.push({ ...request, history: [...request.history] });
      return { reasoning: 'ok', nextState: page('next'), reward: 0, terminated: false };
    },
  };
}

describe('SyntheticEnv.reset({ from })', () => {
  let buffer: SqliteReplayBuffer;
  beforeAll(async () => {
    buffer = SqliteReplayBuffer.open();
    await buffer.add([
      REAL,
      { ...REAL, id: 'dreamt-7', provenance: 'synthetic' },
      { ...REAL, id: 'other-env', env: 'mail', task: { ...TASK, id: 'mail/7', env: 'mail' } },
    ]);
  });
  afterAll(() => buffer.close());
  const envWith = (model: ExperienceModel) =>
    new SyntheticEnv({ env: 'desk', model, buffer, k: 0 });

  it("reproduces the real episode's task, state and history at the branch", async () => {
    const model = recordingModel();
    const { observation, info } = await envWith(model).reset({
      from: { trajectory: 'real-7', step: 2 },
    });
    expect(observation).toEqual(page('T-7: replied'));
    expect(info.task).toEqual(TASK);
    expect(info.branchedFrom).toEqual({ trajectory: 'real-7', step: 2 });
    expect(info.history?.map((s) => [s.action, s.observation.text])).toEqual([
      ['open[T-7]', 'T-7: printer jam'],
      ['reply[fixed]', 'T-7: replied'],
    ]);
    // The model made up no start: the real one is the episode's.
    expect(model.asked).toHaveLength(0);
  });

  it('starts at the real start with no history at step 0', async () => {
    const { observation, info } = await envWith(recordingModel()).reset({
      from: { trajectory: 'real-7', step: 0 },
    });
    expect(observation).toEqual(page('inbox: T-7 open'));
    expect(info.history).toEqual([]);
  });

  it('continues with the restored history, the real start and the branch state', async () => {
    const model = recordingModel();
    const env = envWith(model);
    await env.reset({ from: { trajectory: 'real-7', step: 2 } });
    await env.step('close[T-7]');
    await env.step('archive[T-7]');
    const [first, second] = model.asked;
    expect(first?.history.map((s) => s.action)).toEqual(['open[T-7]', 'reply[fixed]']);
    expect(first?.state.text).toBe('T-7: replied');
    expect(first?.initial?.text).toBe('inbox: T-7 open');
    expect(second?.history.map((s) => s.action)).toEqual([
      'open[T-7]',
      'reply[fixed]',
      'close[T-7]',
    ]);
    expect(second?.state.text).toBe('next');
  });

  it('gives a fresh episode after a branched one its own start and no history', async () => {
    const model = recordingModel();
    const env = envWith(model);
    await env.reset({ from: { trajectory: 'real-7', step: 2 } });
    await env.reset({ task: TASK });
    await env.step('open[T-7]');
    expect(model.asked[0]?.history).toEqual([]);
    expect(model.asked[0]?.initial?.text).toBe('a made-up start');
  });

  it.each([
    [{ trajectory: 'nowhere', step: 0 }, /trajectory nowhere at step 0: the buffer holds no steps/],
    [
      { trajectory: 'real-7', step: 3 },
      /real-7 at step 3: it has 3 steps, the last of which ended it; start from a step between 0 and 2/,
    ],
    [{ trajectory: 'real-7', step: -1 }, /real-7 at step -1: the step must be a whole number/],
    [{ trajectory: 'real-7', step: 1.5 }, /real-7 at step 1.5: the step must be a whole number/],
    [
      { trajectory: 'other-env', step: 1 },
      /other-env at step 1: it is an episode of env "mail", not "desk"/,
    ],
    [
      { trajectory: 'dreamt-7', step: 1 },
      /dreamt-7 at step 1: it is a synthetic episode; branch from real ones/,
    ],
  ])('refuses %o, naming the trajectory and the step', async (from, message) => {
    const env = envWith(recordingModel());
    const reset = env.reset({ from });
    await expect(reset).rejects.toThrow(TaskError);
    await expect(reset).rejects.toThrow(message);
  });

  it('refuses a task and a branch point together', async () => {
    const env = envWith(recordingModel());
    await expect(
      env.reset({ task: TASK, from: { trajectory: 'real-7', step: 1 } }),
    ).rejects.toThrow(/either a task or a real state/);
  });

  it('allows the state after the last step of an episode that did not terminate', async () => {
    const cut = { ...REAL, id: 'cut-7', steps: REAL.steps.slice(0, 2) };
    await buffer.add([cut]);
    const { observation } = await envWith(recordingModel()).reset({
      from: { trajectory: 'cut-7', step: 2 },
    });
    expect(observation.text).toBe('T-7: replied');
  });
});

describe('branching with a model learnt from the buffer', () => {
  it("replays the real episode's next step when the branch takes its action (webshop)", async () => {
    const buffer = SqliteReplayBuffer.open();
    const real = await webshopTrajectories(12);
    await buffer.add(real);
    const env = new SyntheticEnv({
      env: 'webshop',
      model: await llmFreeModel('webshop', buffer),
      buffer,
      k: 0,
    });
    const episode = real.find((t) => t.steps.length >= 3) as Trajectory;
    const at = 2;
    await env.reset({ from: { trajectory: episode.id, step: at } });
    const next = await env.step((episode.steps[at] as Step).action);
    expect(next.observation.text).toBe((episode.steps[at] as Step).observation.text);
    await buffer.close();
  });
});
