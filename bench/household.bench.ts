/**
 * household env speed: task generation, reset latency (scene generation + first observation),
 * single-step latency on random admissible commands, and throughput of whole episodes played by
 * the scripted expert (ε = 0 and 0.3, planning every step) and by a random admissible policy.
 */
import { Rng } from '../src/core/rng.ts';
import { HouseholdEnv, makeHousehold } from '../src/envs/household/household-env.ts';
import { householdTask, householdTasks } from '../src/envs/household/tasks.ts';
import { HouseholdExpert } from '../src/policy/experts/household-expert.ts';
import type { Policy } from '../src/policy/policy.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import { runEpisode } from '../src/rl/episode.ts';
import { measure, timeOnce } from './measure.ts';

export default async function householdBench() {
  const taskGeneration = await measure((i) => householdTask(10_000 + i), { iterations: 1000 });
  const tasks = householdTasks('test');

  const env = new HouseholdEnv({ split: 'test' });
  const reset = await measure((i) => env.reset({ task: tasks[i % tasks.length] }), {
    iterations: 1000,
  });

  // One random admissible command per timed call, restarting the episode when it ends.
  const rng = new Rng(1);
  let observation = (await env.reset({ task: tasks[0] })).observation;
  let episode = 0;
  const step = await measure(
    async () => {
      const result = await env.step(rng.pick(observation.actions ?? []));
      observation = result.terminated
        ? (await env.reset({ task: tasks[++episode % tasks.length] })).observation
        : result.observation;
    },
    { iterations: 5000 },
  );

  const throughput = async (policy: Policy, episodes: number) => {
    const household = makeHousehold({ split: 'test' });
    let steps = 0;
    let successes = 0;
    const ms = await timeOnce(async () => {
      for (let i = 0; i < episodes; i++) {
        const t = await runEpisode(household, policy, {
          task: tasks[i % tasks.length],
          seed: i,
          provenance: 'real-online',
        });
        steps += t.steps.length;
        if (t.steps.at(-1)?.reward === 1) successes++;
      }
    });
    return {
      episodes,
      steps,
      successRate: successes / episodes,
      episodesPerSecond: (episodes / ms) * 1000,
      stepsPerSecond: (steps / ms) * 1000,
    };
  };
  const expert = await throughput(new HouseholdExpert({ epsilon: 0 }), 500);
  const noisyExpert = await throughput(new HouseholdExpert({ epsilon: 0.3 }), 500);
  const random = await throughput(new RandomPolicy(), 500);

  console.log(
    `task generation p50 ${taskGeneration.median.toFixed(3)} ms, reset p50 ${reset.median.toFixed(3)} ms ` +
      `p90 ${reset.p90.toFixed(3)} ms, step p50 ${step.median.toFixed(4)} ms p90 ${step.p90.toFixed(4)} ms`,
  );
  for (const [name, r] of Object.entries({ expert, noisyExpert, random })) {
    console.log(
      `${name}: ${r.stepsPerSecond.toFixed(0)} steps/s, ${r.episodesPerSecond.toFixed(0)} episodes/s, ` +
        `success ${(100 * r.successRate).toFixed(1)}% over ${r.episodes} episodes`,
    );
  }
  return {
    taskGenerationMs: taskGeneration,
    resetMs: reset,
    randomStepMs: step,
    expertEpisodes: expert,
    noisyExpertEpisodes: noisyExpert,
    randomEpisodes: random,
  };
}
