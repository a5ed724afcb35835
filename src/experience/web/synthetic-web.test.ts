import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { moduleGraph, realEnvModules } from '../../core/testing/module-graph.ts';
import type { Task, Trajectory } from '../../core/types.ts';
import { runEnvConformance } from '../../envs/conformance.ts';
import { TimeLimit } from '../../envs/wrappers/time-limit.ts';
import { actionKind, teacherForced } from '../../pipeline/fidelity.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import type { ExperienceModel } from '../experience-model.ts';
import { isWebFamily, llmFreeModel } from '../llm-free.ts';
import { SyntheticEnv } from '../synthetic-env.ts';
import { tinyForumTrajectories } from './testing/tiny-forum.ts';
import { WebExperienceModel } from './web-model.ts';

let offline: Trajectory[];
let buffer: SqliteReplayBuffer;
let tasks: Task[];

beforeAll(async () => {
  offline = tinyForumTrajectories();
  buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  tasks = offline.map((t) => t.task);
  model = await llmFreeModel('web:tiny', buffer);
});

let model: ExperienceModel;
const synthetic = () =>
  new SyntheticEnv({
    env: 'web:tiny',
    model,
    buffer,
    tasks: { tasks: () => tasks },
  });

runEnvConformance(
  {
    name: 'synthetic web (LLM-free model, hand-made forum)',
    makeEnv: () => new TimeLimit(synthetic(), 12),
    invalidAction: 'click [999]',
  },
  { describe, it },
);

describe('the web families in the LLM-free dispatch and fidelity', () => {
  it('gives web families the web model', async () => {
    expect(isWebFamily('web:forum')).toBe(true);
    expect(isWebFamily('webarena@configs/x.json')).toBe(true);
    expect(isWebFamily('webshop')).toBe(false);
    expect(await llmFreeModel('web:tiny', buffer)).toBeInstanceOf(WebExperienceModel);
  });

  it('replays the real episodes teacher-forced, exactly where the buffer saw them', async () => {
    const report = await teacherForced({
      model: await llmFreeModel('web:tiny', buffer),
      buffer,
      trajectories: offline,
    });
    expect(report.exactMatch).toBe(1);
    expect(report.rewardMae).toBe(0);
    expect(Object.keys(report.byAction).sort()).toEqual([
      'click:button (submit)',
      'click:link',
      'stop',
      'type',
    ]);
  });

  it('ends an episode on `stop []`, as the browser env does (no answer is an answer)', async () => {
    const env = synthetic();
    await env.reset({ task: tasks[0] as Task });
    const step = await env.step('stop []');
    expect(step.info.invalidAction).toBeUndefined();
    expect(step.terminated).toBe(true);
    await env.close();
  });

  it('names web action kinds by what they act on', () => {
    const page = tinyForumTrajectories()[0]?.initial.text ?? '';
    expect(actionKind('click [3]', page)).toBe('click:link');
    expect(actionKind('type [4] [pasta] [1]', page)).toBe('type+enter (submit)');
    expect(actionKind('go_back', page)).toBe('navigate');
    expect(actionKind('goto [http://x/]', page)).toBe('navigate');
    expect(actionKind('tab_focus [1]', page)).toBe('tab');
    expect(actionKind('click[Buy Now]')).toBe('click[Buy Now]');
  });
});

describe('honesty', () => {
  it('the web experience model never imports the browser env or the sites', () => {
    const root = resolve(import.meta.dirname);
    const seen = moduleGraph(
      ['web-model.ts', 'knowledge.ts', '../llm-free.ts', '../llm/prompt.ts'].map((f) =>
        join(root, f),
      ),
    );
    expect(realEnvModules(seen)).toEqual([]);
    expect([...seen].some((f) => f.endsWith('/envs/formats/web-tree.ts'))).toBe(true);
    const browser = moduleGraph([join(root, '../../envs/web/sites/builtin-sites.ts')]);
    expect(realEnvModules(browser).length).toBeGreaterThan(0);
  });
});
