import { describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import type { ExperienceModel, ExperienceRequest } from './experience-model.ts';
import { inadmissible, SyntheticEnv } from './synthetic-env.ts';

const TASK: Task = { id: 'shop/0', env: 'webshop', instruction: 'buy a mug', origin: 'seed' };

/** A model that answers every step alike and keeps what it was asked. */
function recordingModel(): ExperienceModel & { asked: ExperienceRequest[] } {
  const asked: ExperienceRequest[] = [];
  return {
    id: 'recording',
    asked,
    initial: async () => ({ text: 'the search page', instruction: TASK.instruction }),
    predict: async (request) => {
      asked.push(request);
      return {
        reasoning: 'ok',
        nextState: { text: 'results', instruction: TASK.instruction },
        reward: 0,
        terminated: false,
      };
    },
  };
}

describe('SyntheticEnv action length', () => {
  it('refuses an action over the limit without asking the model, quoting only its head', async () => {
    const model = recordingModel();
    const env = new SyntheticEnv({
      env: 'webshop',
      model,
      buffer: SqliteReplayBuffer.open(),
      k: 0,
    });
    await env.reset({ task: TASK });
    const huge = `search[${'mug '.repeat(250_000)}]`;
    const refused = await env.step(huge);
    expect(refused).toMatchObject({ reward: 0, terminated: false, truncated: false });
    expect(refused.observation.text).toBe('the search page');
    const why = refused.info.invalidAction as string;
    expect(why).toMatch(
      /^the action is 1,000,008 characters, over the limit of 2,000 \(SyntheticEnv maxActionChars\)/,
    );
    expect(why).toContain('"search[mug mug');
    expect(why.length).toBeLessThan(400);
    expect(model.asked).toHaveLength(0);
    // What the model sees of the episode afterwards holds the action clipped to the limit.
    await env.step('search[mug]');
    expect(model.asked[0]?.history[0]?.action).toHaveLength(2_000);
  });

  it('takes its limit from maxActionChars, and quotes an inadmissible long action clipped', async () => {
    const env = new SyntheticEnv({
      env: 'webshop',
      model: recordingModel(),
      buffer: SqliteReplayBuffer.open(),
      k: 0,
      maxActionChars: 10,
    });
    await env.reset({ task: TASK });
    expect((await env.step('search[mugs]')).info.invalidAction).toMatch(/over the limit of 10 /);
    expect((await env.step('search[a]')).info.invalidAction).toBeUndefined();
    const state = { text: 'a page', instruction: 'x', actions: ['click[Buy Now]'] };
    const why = inadmissible(`click[${'x'.repeat(500)}]`, state) as string;
    expect(why).toMatch(/^"click\[x+…" \(507 characters\) is not an admissible action here\.$/);
  });
});
