import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('ChoicePolicy families', () => {
  const desk: Observation = {
    text: JSON.stringify({ id: 'O-7', status: 'pending' }),
    instruction: 'Ana Ruiz here. What is the status of my order?',
    actions: ['get_order[O-7]', 'answer[<text>]'],
  };

  it('gives shops, households and web pages the page features, other families the generic ones', () => {
    const shop = new ChoicePolicy({ family: 'webshop', seed: 3 });
    const unnamed = new ChoicePolicy({ seed: 3 });
    const web = new ChoicePolicy({ family: 'web:forum', seed: 3 });
    const generic = new ChoicePolicy({ family: 'support-desk', seed: 3 });
    // The same network as a policy that names no family: the page features' numbers stand.
    expect(shop.id).toBe(unnamed.id);
    expect(shop.variables.map((v) => v.shape)).toEqual(unnamed.variables.map((v) => v.shape));
    expect(web.variables.map((v) => v.shape)).toEqual(unnamed.variables.map((v) => v.shape));
    expect(generic.id).toBe('choice(support-desk,h=64,seed=3)');
    expect(generic.variables[0]?.shape).not.toEqual(unnamed.variables[0]?.shape);
    // Page features fill a template with queries; generic ones with the values the episode shows.
    expect(unnamed.candidates(desk)).not.toContain('answer[pending]');
    expect(generic.candidates(desk)).toContain('answer[pending]');
    for (const p of [shop, unnamed, web, generic]) p.dispose();
  });

  it('saves its family with its weights and comes back with the same features', async () => {
    const policy = new ChoicePolicy({ family: 'support-desk', seed: 4 });
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-generic-policy-'));
    await policy.save(dir);
    const loaded = await ChoicePolicy.load(dir);
    const decision: RecordedDecision = {
      observation: desk,
      history: [],
      observations: [],
      action: 'answer[pending]',
    };
    expect(loaded.id).toBe(policy.id);
    expect(Array.from(loaded.evaluate([decision]).logProbs.dataSync())).toEqual(
      Array.from(policy.evaluate([decision]).logProbs.dataSync()),
    );
    policy.dispose();
    loaded.dispose();
  });
});
