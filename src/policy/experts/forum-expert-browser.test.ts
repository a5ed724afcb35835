import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../core/types.ts';
import { BrowserEnv } from '../../envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../../envs/web/sites/builtin-sites.ts';
import { forumApp } from '../../envs/web/sites/forum/forum-app.ts';
import { FORUM_ENV, forumTasks, forumTemplateOf } from '../../envs/web/sites/forum/forum-tasks.ts';
import { evaluateTask } from '../../envs/web/webarena/evaluate.ts';
import { runEpisode } from '../../rl/episode.ts';
import type { Policy } from '../policy.ts';
import { ForumExpert } from './forum-expert.ts';

/**
 * End to end in the real browser env (Chromium; without one the env's launcher fails naming the
 * fix): for the first test task of every template, the expert's trajectory meets the task's
 * checks and a do-nothing trajectory (`stop []` at once) does not.
 */
describe('forum expert in the browser env', () => {
  const source = forumTasks(0);
  const firstOfEach = new Map<number, Task>();
  for (const task of source.tasks('test')) {
    const id = forumTemplateOf(task).template.id;
    if (!firstOfEach.has(id)) firstOfEach.set(id, task);
  }
  const sample = [...firstOfEach.values()];
  let env: BrowserEnv;

  beforeAll(() => {
    env = new BrowserEnv({
      name: FORUM_ENV,
      sites: new BuiltInSites([forumApp]),
      tasks: source,
      split: 'test',
      evaluate: evaluateTask,
    });
  });

  afterAll(async () => {
    await env?.close();
  });

  const doNothing: Policy = { id: 'do-nothing', act: async () => ({ action: 'stop []' }) };

  async function finalReward(policy: Policy, task: Task) {
    const trajectory = await runEpisode(env, policy, { task, seed: 0, provenance: 'real-online' });
    const last = trajectory.steps.at(-1);
    return {
      reward: last?.reward,
      trace: `${task.id} ${task.instruction}\n${trajectory.steps.map((s) => `  ${s.action}`).join('\n')}\n${JSON.stringify(last?.info?.evaluation)}`,
    };
  }

  it(
    'solves one task of every template, which doing nothing does not',
    async () => {
      expect(sample.length).toBeGreaterThanOrEqual(30);
      for (const task of sample) {
        const expert = await finalReward(new ForumExpert(), task);
        expect(expert.reward, expert.trace).toBe(1);
        const idle = await finalReward(doNothing, task);
        expect(idle.reward, idle.trace).toBe(0);
      }
    },
    15 * 60_000,
  );
});
