import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { initTf } from '../../core/tf.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type { RecordedDecision } from '../policy.ts';
import { ChoicePolicy } from './choice-policy.ts';

beforeAll(() => initTf());

const task: Task = {
  id: 't/0',
  env: 'test',
  instruction: 'buy a red mug under 20 dollars',
  origin: 'seed',
};
const page = (text: string, actions: string[]): Observation => ({
  text,
  instruction: task.instruction,
  actions,
});
const results = page('Results: red mug $12 | blue mug $9', ['click[red mug]', 'click[blue mug]']);
const step = (action: string, observation: Observation): Step => ({
  action,
  observation,
  reward: 0,
  terminated: false,
  truncated: false,
});

describe('ChoicePolicy', () => {
  it('reuses the features act computed for the update, and only for the decision act saw', async () => {
    const policy = new ChoicePolicy({ seed: 2 });
    const fresh = policy.copy();
    const history = [step('search[red mug]', results)];
    const acted = await policy.act(results, { task, history, rng: new Rng(1) });
    const same: RecordedDecision = {
      observation: results,
      history: ['search[red mug]'],
      observations: [results],
      action: acted.action,
    };
    // The same observation object reached after another history: its features differ.
    const other: RecordedDecision = {
      observation: results,
      history: [],
      observations: [],
      action: 'click[blue mug]',
    };
    const got = policy.evaluate([same, other]);
    const want = fresh.evaluate([same, other]);
    expect(Array.from(got.logProbs.dataSync())).toEqual(Array.from(want.logProbs.dataSync()));
    expect(got.logProbs.dataSync()[0]).toBeCloseTo(acted.logProb ?? Number.NaN, 5);
  });
});
