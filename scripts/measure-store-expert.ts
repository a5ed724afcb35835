/**
 * Measures the store expert end to end: its success rate on the `web:store` test tasks in a real
 * Chromium, at a given ε, with episodes spread over parallel browser contexts.
 *
 *   npx tsx scripts/measure-store-expert.ts [--epsilon 0.3] [--tasks 200] [--parallel 2]
 *
 * Prints the success rate, steps per episode, and episodes per minute, plus the failed tasks.
 */

import { parseArgs } from 'node:util';
import type { Task } from '../src/core/types.ts';
import { BrowserEnv } from '../src/envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../src/envs/web/sites/builtin-sites.ts';
import { storeApp } from '../src/envs/web/sites/store/store-app.ts';
import { storeTasks } from '../src/envs/web/sites/store/store-tasks.ts';
import { evaluateTask } from '../src/envs/web/webarena/evaluate.ts';
import { StoreExpert } from '../src/policy/experts/store-expert.ts';
import { runEpisode } from '../src/rl/episode.ts';

const { values } = parseArgs({
  options: {
    epsilon: { type: 'string', default: '0' },
    tasks: { type: 'string', default: '200' },
    parallel: { type: 'string', default: '2' },
  },
});
const epsilon = Number(values.epsilon);
const list = storeTasks(0).tasks('test', Number(values.tasks));
const parallel = Math.max(1, Number(values.parallel));
const expert = new StoreExpert({ epsilon });

const started = performance.now();
const outcomes: Array<{ task: Task; reward: number; steps: number }> = [];
let next = 0;
const envs = Array.from(
  { length: parallel },
  () =>
    new BrowserEnv({
      name: 'web:store',
      sites: new BuiltInSites([storeApp]),
      tasks: storeTasks(0),
      evaluate: evaluateTask,
    }),
);
try {
  await Promise.all(
    envs.map(async (env) => {
      for (let i = next++; i < list.length; i = next++) {
        const task = list[i] as Task;
        const trajectory = await runEpisode(env, expert, {
          task,
          seed: i,
          provenance: 'real-online',
        });
        const reward = trajectory.steps.at(-1)?.reward ?? 0;
        outcomes.push({ task, reward, steps: trajectory.steps.length });
        if (outcomes.length % 20 === 0) console.error(`${outcomes.length}/${list.length} episodes`);
      }
    }),
  );
} finally {
  await Promise.all(envs.map((env) => env.close()));
}
const minutes = (performance.now() - started) / 60_000;
const solved = outcomes.filter((o) => o.reward === 1).length;
const steps = outcomes.reduce((sum, o) => sum + o.steps, 0);
console.log(
  `store expert ε=${epsilon}: ${solved}/${outcomes.length} solved (${((100 * solved) / outcomes.length).toFixed(1)}%), ` +
    `${(steps / outcomes.length).toFixed(2)} steps/episode, ${(outcomes.length / minutes).toFixed(1)} episodes/min over ${parallel} contexts`,
);
for (const o of outcomes.filter((x) => x.reward !== 1)) {
  console.log(`  failed ${o.task.id}: ${o.task.instruction}`);
}
