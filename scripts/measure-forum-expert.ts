/**
 * Measures the forum expert in the real browser env:
 * `npx tsx scripts/measure-forum-expert.ts [--epsilon 0] [--tasks 200] [--parallel 1]`
 * plays the first N test tasks of `web:forum` (seed 0) and prints the success rate (reward 1),
 * mean steps, wall time and episodes per minute, then the failures by template.
 */
import { parseArgs } from 'node:util';
import { BrowserEnv } from '../src/envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../src/envs/web/sites/builtin-sites.ts';
import { forumApp } from '../src/envs/web/sites/forum/forum-app.ts';
import { FORUM_ENV, forumTasks, forumTemplateOf } from '../src/envs/web/sites/forum/forum-tasks.ts';
import { evaluateTask } from '../src/envs/web/webarena/evaluate.ts';
import { ForumExpert } from '../src/policy/experts/forum-expert.ts';
import { runEpisode } from '../src/rl/episode.ts';

const { values } = parseArgs({
  options: {
    epsilon: { type: 'string', default: '0' },
    tasks: { type: 'string', default: '200' },
    parallel: { type: 'string', default: '1' },
  },
});
const epsilon = Number(values.epsilon);
const count = Number(values.tasks);
const parallel = Math.max(1, Number(values.parallel));
const source = forumTasks(0);
const tasks = source.tasks('test', count);
const expert = new ForumExpert({ epsilon });
const sites = new BuiltInSites([forumApp]);
const envs = Array.from(
  { length: parallel },
  () =>
    new BrowserEnv({
      name: FORUM_ENV,
      sites,
      tasks: source,
      split: 'test',
      evaluate: evaluateTask,
    }),
);

const failures = new Map<string, number>();
let successes = 0;
let steps = 0;
let next = 0;
const started = performance.now();
try {
  await Promise.all(
    envs.map(async (env) => {
      for (let i = next++; i < tasks.length; i = next++) {
        const task = tasks[i] as (typeof tasks)[number];
        const trajectory = await runEpisode(env, expert, {
          task,
          seed: i,
          provenance: 'real-offline',
        });
        steps += trajectory.steps.length;
        if (trajectory.steps.at(-1)?.reward === 1) successes++;
        else {
          const key = forumTemplateOf(task).template.key;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
        if ((i + 1) % 20 === 0) process.stderr.write(`${i + 1}/${tasks.length}\n`);
      }
    }),
  );
} finally {
  // The envs share the sites; closing them closes the sites once per env, which is idempotent.
  await Promise.all(envs.map((env) => env.close()));
}
const minutes = (performance.now() - started) / 60_000;
console.log(
  JSON.stringify(
    {
      epsilon,
      tasks: tasks.length,
      parallel,
      success: successes / tasks.length,
      meanSteps: steps / tasks.length,
      minutes: Number(minutes.toFixed(2)),
      episodesPerMinute: Number((tasks.length / minutes).toFixed(1)),
      failuresByTemplate: Object.fromEntries(failures),
    },
    null,
    2,
  ),
);
