import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleGraph, realEnvModules } from '../core/testing/module-graph.ts';
import type { Step, Task, Trajectory } from '../core/types.ts';
import { runEnvConformance } from '../envs/conformance.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { syntheticFactory } from '../pipeline/experiment.ts';
import { teacherForced } from '../pipeline/fidelity.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { relabel, toArray, webshopTrajectories } from '../replay/testing/fixtures.ts';
import type { ExperienceModel } from './experience-model.ts';
import { llmFreeModel } from './llm-free.ts';
import { NearestNeighborModel } from './nearest-neighbor-model.ts';
import { SyntheticEnv } from './synthetic-env.ts';

let offline: Trajectory[];
let heldOut: Trajectory[];
let buffer: SqliteReplayBuffer;
let model: ExperienceModel;
let tasks: Task[];

beforeAll(async () => {
  offline = await webshopTrajectories(150, 1);
  heldOut = (await webshopTrajectories(180, 2)).slice(150);
  buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  model = await llmFreeModel('webshop', buffer);
  tasks = offline.map((t) => t.task);
});

const synthetic = (options: { model?: ExperienceModel } = {}) =>
  new SyntheticEnv({
    env: 'webshop',
    model: options.model ?? model,
    buffer,
    tasks: { tasks: () => tasks },
    ...options,
  });

runEnvConformance(
  {
    name: 'synthetic webshop (LLM-free model)',
    makeEnv: () => new TimeLimit(synthetic(), 15),
    invalidAction: 'click[Buy Now]',
  },
  { describe, it },
);

/** Plays actions in a synthetic env and returns the observations' texts. */
async function play(env: SyntheticEnv, task: Task, actions: string[]): Promise<string[]> {
  const texts = [(await env.reset({ task })).observation.text];
  for (const action of actions) texts.push((await env.step(action)).observation.text);
  return texts;
}

describe('LLM-free webshop experience model', () => {
  it('keeps an episode consistent: a revisited page shows what it showed before', async () => {
    const env = synthetic();
    const task = tasks[0] as Task;
    const first = await env.reset({ task });
    expect(first.observation.text).toContain(task.instruction);
    const results = await env.step('search[comfortable everyday item]');
    const item = results.observation.actions?.find((a) => /^click\[B0/.test(a));
    expect(item).toBeDefined();
    const opened = await env.step(item as string);
    const back = await env.step('click[< Prev]');
    expect(back.observation.text).toBe(results.observation.text);
    const again = await env.step(item as string);
    expect(again.observation.text).toBe(opened.observation.text);
    await env.step('click[Back to Search]');
    expect((await env.step('search[comfortable everyday item]')).observation.text).toBe(
      results.observation.text,
    );
  });

  it('keeps a change: options selected before visiting the description still count at purchase', async () => {
    const trajectory = offline.find((t) =>
      t.steps.some((s) => s.observation.text.startsWith('You have clicked')),
    );
    if (!trajectory) throw new Error('no trajectory with an option click');
    const task = trajectory.task;
    const upToItem = trajectory.steps
      .slice(
        0,
        trajectory.steps.findIndex((s) => s.observation.text.startsWith('You have clicked')),
      )
      .map((s) => s.action);
    const option = trajectory.steps.find((s) =>
      s.observation.text.startsWith('You have clicked'),
    ) as Step;
    const env = synthetic();
    await play(env, task, [...upToItem, option.action, 'click[Description]', 'click[< Prev]']);
    const bought = await env.step('click[Buy Now]');
    expect(bought.terminated).toBe(true);
    const label = /click\[(.*)\]/.exec(option.action)?.[1] as string;
    expect(bought.info.reasoning).toContain(`selected: ${label}`);
  });

  it('is deterministic', async () => {
    const actions = heldOut[0]?.steps.map((s) => s.action) ?? [];
    const task = heldOut[0]?.task as Task;
    expect(await play(synthetic(), task, actions)).toEqual(await play(synthetic(), task, actions));
  });

  it('is closer to the real env than nearest-neighbour retrieval, and fits rewards within 0.1', async () => {
    const llmFree = await teacherForced({ model, buffer, trajectories: heldOut });
    const nearest = await teacherForced({
      model: new NearestNeighborModel(),
      buffer,
      trajectories: heldOut,
    });
    expect(llmFree.exactMatch).toBeGreaterThan(nearest.exactMatch);
    expect(llmFree.rewardMae).toBeLessThan(0.1);
    expect(llmFree.terminalAccuracy).toBe(1);
    expect(llmFree.byAction['click[option]']?.exactMatch).toBe(1);
  });

  it('writes every finished synthetic episode back, the step limit’s cut-offs included', async () => {
    const own = SqliteReplayBuffer.open();
    await own.add(offline.slice(0, 20));
    const setup = {
      name: 'webshop',
      makeReal: () => {
        throw new Error('not used');
      },
      trainTasks: tasks,
      testTasks: [],
      maxEpisodeSteps: 4,
    };
    const env = syntheticFactory(setup, own, await llmFreeModel('webshop', own), {
      writeBack: true,
    })();
    // A purchase: terminated on the third step.
    await env.reset({ task: tasks[0] as Task });
    const results = await env.step('search[red]');
    const item = results.observation.actions?.find((a) => /B0/.test(a));
    await env.step(item as string);
    expect((await env.step('click[Buy Now]')).terminated).toBe(true);
    // Back and forth until the step limit cuts the episode off.
    await env.reset({ task: tasks[1] as Task });
    for (const action of ['search[a]', 'click[Back to Search]', 'search[b]'])
      await env.step(action);
    expect((await env.step('click[Back to Search]')).info.truncatedBy).toBe('time-limit');
    await env.close();
    const stored = await toArray(own.trajectories({ provenance: 'synthetic' }));
    expect(stored.map((t) => [t.task.id, t.steps.length])).toEqual([
      [tasks[0]?.id, 3],
      [tasks[1]?.id, 4],
    ]);
    expect(stored[0]?.steps.at(-1)?.terminated).toBe(true);
    expect(stored[1]?.steps.at(-1)).toMatchObject({ truncated: true, terminated: false });
    expect(stored[1]?.steps.at(-1)?.info?.truncatedBy).toBe('time-limit');
    // The model's reasoning is stored with each step, as the SFT export reads it.
    expect(stored[0]?.steps.every((s) => typeof s.reasoning === 'string')).toBe(true);
    await own.close();
  });

  it('mixes synthetic demonstrations in at realShare, real ones filling in when there are none', async () => {
    const own = SqliteReplayBuffer.open();
    await own.add(offline.slice(0, 20));
    const learnt = await llmFreeModel('webshop', own);
    // The LLM-free model reads no per-step demonstrations, so none are retrieved for it; the
    // same model seen as one that reads them (an LLM's place) gets the mix.
    const reading: ExperienceModel = {
      id: learnt.id,
      initial: (task, demos) => learnt.initial(task, demos),
      predict: (request) => learnt.predict(request),
    };
    const step = async (model: ExperienceModel, realShare = 0.5) => {
      const env = new SyntheticEnv({ env: 'webshop', model, buffer: own, k: 4, realShare });
      await env.reset({ task: tasks[0] as Task });
      return env.step('search[red]');
    };
    const kinds = async () => {
      const { info } = await step(reading);
      const ids = info.demonstrations as string[];
      return ids.map((id) => (id.startsWith('syn-') ? 'synthetic' : 'real'));
    };
    expect(learnt.readsDemonstrations).toBe(false);
    const unread = await step(learnt);
    expect(unread.info.demonstrations).toEqual([]);
    expect(unread.observation).toEqual((await step(reading)).observation);
    expect(await kinds()).toEqual(['real', 'real', 'real', 'real']); // nothing synthetic yet
    await own.add(relabel(offline.slice(0, 20), 'synthetic', 'syn'));
    expect((await kinds()).sort()).toEqual(['real', 'real', 'synthetic', 'synthetic']);
    expect(
      () => new SyntheticEnv({ env: 'webshop', model: learnt, buffer: own, realShare: 1.5 }),
    ).toThrow(/realShare must be between 0 and 1/);
    await own.close();
  });

  it('refreshes what it learnt with the real episodes the buffer gained, never the synthetic ones', async () => {
    const own = SqliteReplayBuffer.open();
    await own.add(offline.slice(0, 20));
    const model = await llmFreeModel('webshop', own);
    const later = offline.slice(20, 60);
    const seenLater = later
      .flatMap((t) => t.steps.map((s) => s.action))
      .find(
        (a) =>
          a.startsWith('search[') &&
          !offline.slice(0, 20).some((t) => t.steps.some((s) => s.action === a)),
      );
    expect(seenLater).toBeDefined();
    const task = tasks[0] as Task;
    const answer = async () =>
      (
        await model.predict({
          task,
          history: [],
          state: await model.initial(task, []),
          action: seenLater as string,
          demonstrations: [],
        })
      ).reasoning;
    expect(await answer()).toMatch(/no real episode sent this query/);
    await own.add(relabel(later, 'synthetic', 'syn'));
    expect(await model.refresh?.()).toBe(0);
    expect(await answer()).toMatch(/no real episode sent this query/);
    await own.add(relabel(later, 'real-online', 'collected'));
    expect(await model.refresh?.()).toBe(later.length);
    expect(await answer()).toMatch(/as real episodes showed it for this exact query/);
    expect(await model.refresh?.()).toBe(0);
    await own.close();
  });

  it('truncates the episode with reason model-error when the model fails', async () => {
    const failing: ExperienceModel = {
      id: 'failing',
      initial: model.initial.bind(model),
      predict: async () => {
        throw new Error('garbage');
      },
    };
    const env = synthetic({ model: failing });
    await env.reset({ task: tasks[0] as Task });
    const step = await env.step('search[x]');
    expect(step.truncated).toBe(true);
    expect(step.terminated).toBe(false);
    expect(step.info.truncatedBy).toBe('model-error');
  });
});

describe('honesty', () => {
  it('no experience-model module imports a real env (catalog, scene or server code)', () => {
    const root = resolve(import.meta.dirname);
    const seen = moduleGraph(
      [
        'llm-free.ts',
        'synthetic-env.ts',
        'nearest-neighbor-model.ts',
        'webshop/webshop-model.ts',
        'household/household-model.ts',
        'household/knowledge.ts',
        '../envs/formats/alfworld-grammar.ts',
      ].map((entry) => join(root, entry)),
    );
    expect(realEnvModules(seen)).toEqual([]);
    expect(seen.size).toBeGreaterThan(5);
  });
});
