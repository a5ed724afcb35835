import { describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import type { ExperienceModel, ExperiencePrediction } from './experience-model.ts';
import { SyntheticEnv } from './synthetic-env.ts';

const TASK: Task = { id: 't/1', env: 'desk', instruction: 'close T-1', origin: 'seed' };

/** A model that answers every step with `answer` (or throws it). */
function answering(answer: Partial<ExperiencePrediction> | Error): ExperienceModel {
  return {
    id: 'scripted',
    initial: async () => ({ text: 'inbox', instruction: TASK.instruction }),
    predict: async () => {
      if (answer instanceof Error) throw answer;
      return {
        reasoning: 'because',
        nextState: { text: 'next', instruction: TASK.instruction },
        reward: 0,
        terminated: false,
        ...answer,
      };
    },
  };
}

async function stepWith(answer: Partial<ExperiencePrediction> | Error) {
  const env = new SyntheticEnv({
    env: 'desk',
    model: answering(answer),
    buffer: SqliteReplayBuffer.open(),
    k: 0,
  });
  await env.reset({ task: TASK });
  return env.step('close[T-1]');
}

describe("SyntheticEnv's info.uncertainty", () => {
  it("records the model's uncertainty, clamped to [0, 1]", async () => {
    expect((await stepWith({ uncertainty: 0.3 })).info.uncertainty).toBe(0.3);
    expect((await stepWith({ uncertainty: 1.7 })).info.uncertainty).toBe(1);
    expect((await stepWith({ uncertainty: -0.2 })).info.uncertainty).toBe(0);
  });

  it('is 1 for an unjudged ending and for a step the model failed on, whatever the model says', async () => {
    const unjudged = await stepWith({ terminated: true, judged: false, uncertainty: 0.1 });
    expect(unjudged.info).toMatchObject({ unjudged: true, uncertainty: 1 });
    const failed = await stepWith(new Error('garbage answer'));
    expect(failed).toMatchObject({
      truncated: true,
      info: { truncatedBy: 'model-error', uncertainty: 1 },
    });
  });

  it('is absent when the model says nothing of its doubt', async () => {
    expect((await stepWith({})).info).not.toHaveProperty('uncertainty');
  });
});

describe('a step the synthetic env refuses itself', () => {
  it('is certain: uncertainty 0, the model never asked', async () => {
    const model = answering({ uncertainty: 0.9 });
    const env = new SyntheticEnv({ env: 'desk', model, buffer: SqliteReplayBuffer.open(), k: 0 });
    await env.reset({ task: TASK });
    const refused = await env.step('');
    expect(refused.info).toMatchObject({ invalidAction: 'empty action.', uncertainty: 0 });
  });
});
