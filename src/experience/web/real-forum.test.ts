/**
 * The web experience model on real pages: a few forum episodes collected here in Chromium with
 * the forum expert. The real env appears only in this test (to make data), never in the model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step, Trajectory } from '../../core/types.ts';
import { parseTree, renderTree } from '../../envs/formats/web-tree.ts';
import { BrowserEnv } from '../../envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../../envs/web/sites/builtin-sites.ts';
import { forumApp } from '../../envs/web/sites/forum/forum-app.ts';
import { forumTasks } from '../../envs/web/sites/forum/forum-tasks.ts';
import { evaluateTask } from '../../envs/web/webarena/evaluate.ts';
import { teacherForced } from '../../pipeline/fidelity.ts';
import { ForumExpert } from '../../policy/experts/forum-expert.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { collect } from '../../rl/collect.ts';
import { llmFreeModel } from '../llm-free.ts';

let env: BrowserEnv;
let episodes: Trajectory[];

beforeAll(async () => {
  const tasks = forumTasks(0);
  env = new BrowserEnv({
    name: 'web:forum',
    sites: new BuiltInSites([forumApp]),
    tasks,
    evaluate: evaluateTask,
    maxSteps: 12,
  });
  const chosen = tasks.tasks('train', 4);
  episodes = await collect({
    env,
    policy: new ForumExpert(),
    tasks: chosen,
    episodes: chosen.length,
    seed: 3,
    provenance: 'real-offline',
  });
}, 240_000);

afterAll(async () => {
  await env?.close();
});

describe('the web experience model on real forum pages', () => {
  it('reads every real observation and writes it back byte for byte', () => {
    const texts = episodes.flatMap((t) => [
      t.initial.text,
      ...t.steps.map((s) => s.observation.text),
    ]);
    expect(texts.length).toBeGreaterThan(episodes.length);
    for (const text of texts) {
      const tree = parseTree(text);
      expect(tree, text.slice(0, 300)).toBeDefined();
      expect(renderTree(tree as never)).toBe(text);
    }
  });

  it('replays the episodes it learnt from exactly: pages, admissible actions and rewards', async () => {
    const buffer = SqliteReplayBuffer.open();
    try {
      await buffer.add(episodes);
      const model = await llmFreeModel('web:forum', buffer);
      const report = await teacherForced({ model, buffer, trajectories: episodes });
      expect(report.exactMatch).toBe(1);
      expect(report.actionF1).toBe(1);
      expect(report.rewardMae).toBe(0);
      const start = await model.initial(episodes[0]?.task as never, []);
      expect(start.text).toBe(episodes[0]?.initial.text);
      const last = episodes[0]?.steps.at(-1) as Step;
      expect(last.terminated).toBe(true);
    } finally {
      await buffer.close();
    }
  });
});
