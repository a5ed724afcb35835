/**
 * Policy and RL speed on the real webshop (1k products) and household envs: rollouts per second
 * of the choice policy (sampling, with log-probabilities and values), and PPO/GRPO update
 * throughput in decisions per second (4 epochs of 64-decision minibatches, TensorFlow.js wasm
 * backend). Household decisions are costlier: 30–50 candidates each and an episode memory.
 */
import { initTf, tf } from '../src/core/tf.ts';
import type { Task } from '../src/core/types.ts';
import type { Env } from '../src/envs/env.ts';
import { envEntry } from '../src/envs/registry.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { rollout } from '../src/rl/rollout.ts';
import { ppoUpdate } from '../src/rl/update.ts';
import { timeOnce } from './measure.ts';

export default async function rlBench() {
  await initTf();
  const catalog = { seed: 0, size: 1000 };
  const household = envEntry('household');
  return {
    ...(await measure(
      'webshop',
      () => makeWebShop({ catalog }),
      webshopTasks(catalog, getCatalog(catalog), 'train', 64),
      4,
    )),
    household: await measure(
      'household',
      () => household.make({}),
      household.tasks({ split: 'train' }).tasks('train', 16),
      2,
    ),
  };
}

/** Rollouts of `groupSize` episodes per task, then one 4-epoch update on their decisions. */
async function measure(name: string, makeEnv: () => Env, tasks: Task[], groupSize: number) {
  const policy = new ChoicePolicy({ seed: 0 });
  await rollout({ makeEnv, policy, tasks: tasks.slice(0, 2), seed: 0, provenance: 'real-online' });
  let episodes: Awaited<ReturnType<typeof rollout>> = [];
  const rolloutMs = await timeOnce(async () => {
    episodes = await rollout({
      makeEnv,
      policy,
      tasks,
      groupSize,
      seed: 1,
      provenance: 'real-online',
    });
  });
  const steps = episodes.reduce((s, e) => s + e.steps.length, 0);
  const samples = episodes.flatMap((e) =>
    e.steps.map((s) => ({ ...s, advantage: Math.random() - 0.5, return: 0 })),
  );
  const optimizer = tf.train.adam(1e-3);
  const epochs = 4;
  const updateMs = await timeOnce(() =>
    ppoUpdate(policy, optimizer, samples, { epochs, minibatchSize: 64 }),
  );
  const results = {
    rollout: {
      episodes: episodes.length,
      steps,
      episodesPerSecond: (episodes.length / rolloutMs) * 1000,
      stepsPerSecond: (steps / rolloutMs) * 1000,
    },
    update: {
      decisions: samples.length,
      epochs,
      decisionsPerSecond: ((samples.length * epochs) / updateMs) * 1000,
      seconds: updateMs / 1000,
    },
  };
  console.log(
    `${name} rollouts: ${results.rollout.episodesPerSecond.toFixed(0)} episodes/s (${results.rollout.stepsPerSecond.toFixed(0)} steps/s); ` +
      `update: ${results.update.decisionsPerSecond.toFixed(0)} decisions/s`,
  );
  policy.dispose();
  optimizer.dispose();
  return results;
}
