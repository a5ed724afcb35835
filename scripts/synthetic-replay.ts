/**
 * How far a policy's synthetic successes hold in the real env:
 * `npx tsx scripts/synthetic-replay.ts --env booking [--experience generic] [--offline 300]
 * [--seed 0] [--tasks 100] [--iterations 2] [--show]`. The scripted expert (ε = 0.2, seed + 1)
 * plays the offline episodes into a buffer; the choice policy is cloned from them (and, with
 * `--iterations`, trained with GRPO in the synthetic env as the generic-rl bench trains it); it
 * plays the first train tasks in the synthetic env of the chosen LLM-free experience model, and
 * each episode's actions are replayed in the real env. Prints the synthetic successes, how many
 * the real env confirms, the false positives' share and the real successes the synthetic env
 * failed; `--show` prints each false success step by step, the synthetic page beside the real one
 * wherever they differ, and the model's reasoning for the synthetic one. The generic-rl bench's settings, seed for seed: without `--iterations`, a
 * probe of the experience model alone, before any RL moves the policy where the buffer has less
 * ground.
 */
import { parseArgs } from 'node:util';
import { initTf } from '../src/core/tf.ts';
import { isSuccess, type Step, type Trajectory } from '../src/core/types.ts';
import type { Env } from '../src/envs/env.ts';
import { type ExperienceChoice, llmFreeModel } from '../src/experience/llm-free.ts';
import { envSetup, offlineData, syntheticFactory } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { rollout } from '../src/rl/rollout.ts';
import { train } from '../src/rl/trainer.ts';

const { values } = parseArgs({
  options: {
    env: { type: 'string', default: 'booking' },
    experience: { type: 'string', default: 'generic' },
    offline: { type: 'string', default: '300' },
    seed: { type: 'string', default: '0' },
    tasks: { type: 'string', default: '100' },
    iterations: { type: 'string', default: '0' },
    show: { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const offlineEpisodes = Number(values.offline);
await initTf();
const setup = envSetup(values.env as string, { trainTasks: offlineEpisodes, testTasks: 50 });
const offline = await offlineData(setup, {
  episodes: offlineEpisodes,
  epsilon: 0.2,
  seed: seed + 1,
});
const buffer = SqliteReplayBuffer.open();
await buffer.add(offline);
const model = await llmFreeModel(setup.name, buffer, {
  experience: values.experience as ExperienceChoice,
});
const policy = new ChoicePolicy({ seed, family: setup.name });
behaviourCloning(policy, offline, { seed });
const synthetic = syntheticFactory(setup, buffer, model);
const iterations = Number(values.iterations);
if (iterations > 0) {
  await train(
    { policy, makeEnv: synthetic, trainTasks: setup.trainTasks, provenance: 'synthetic' },
    {
      algo: 'grpo',
      tasksPerIteration: 16,
      groupSize: 8,
      evalEvery: 0,
      iterations,
      seed,
      maxEpisodeSteps: setup.maxEpisodeSteps,
    },
  );
}
const episodes = await rollout({
  makeEnv: synthetic,
  policy,
  tasks: setup.trainTasks.slice(0, Number(values.tasks)),
  seed: 200 + seed,
  provenance: 'synthetic',
});
const real = setup.makeReal();
const report = await replayInReal({
  trajectories: episodes.map((e) => e.trajectory),
  realEnv: real,
});
if (values.show) {
  for (const { trajectory } of episodes.filter((e) => isSuccess(e.trajectory)))
    await showIfFalse(trajectory, real);
  for (const { trajectory } of episodes.filter((e) => e.trajectory.steps.at(-1)?.info?.unjudged))
    await showIfLeftOut(trajectory, real);
}
await real.close();
await buffer.close();
console.log(
  `${setup.name}, ${model.id}, seed ${seed}: ${report.syntheticSuccesses} synthetic successes of ${report.episodes}, ${report.confirmed} confirmed in the real env, false positives ${(100 * report.falsePositiveShare).toFixed(0)}%; real successes the synthetic env failed: ${report.missed}`,
);

/** The experience model's reasoning for a synthetic step. */
function reasoningOf(step: Step): string {
  return step.reasoning ?? String(step.info?.reasoning ?? '(none given)');
}

/** An unjudged synthetic ending that the real env, replaying its actions, scores a success. */
async function showIfLeftOut(trajectory: Trajectory, env: Env): Promise<void> {
  await env.reset({
    task: trajectory.task,
    ...(trajectory.seed !== undefined && { seed: trajectory.seed }),
  });
  let result: Awaited<ReturnType<Env['step']>> | undefined;
  for (const step of trajectory.steps) {
    result = await env.step(step.action);
    if (result.terminated || result.truncated) break;
  }
  if (!result?.terminated || result.reward < 1) return;
  const last = trajectory.steps.at(-1) as Step;
  console.log(
    `real success left unjudged on ${trajectory.task.id}: ${trajectory.task.instruction}`,
  );
  console.log(`  ${trajectory.steps.map((s) => s.action).join(' > ')}`);
  console.log(`  why: ${reasoningOf(last)}`);
}

/** A synthetic success replayed in the real env, printed step by step when the real env denies it. */
async function showIfFalse(trajectory: Trajectory, env: Env): Promise<void> {
  await env.reset({
    task: trajectory.task,
    ...(trajectory.seed !== undefined && { seed: trajectory.seed }),
  });
  const lines: string[] = [];
  const flat = (text: string) => text.replace(/\n+/g, ' | ');
  let confirmed = false;
  for (const step of trajectory.steps) {
    const real = await env.step(step.action);
    const same = real.observation.text === step.observation.text;
    lines.push(`  > ${step.action}   synthetic reward ${step.reward}, real ${real.reward}`);
    if (!same)
      lines.push(
        `      synthetic: ${flat(step.observation.text)}`,
        `      real:      ${flat(real.observation.text)}`,
        `      why:       ${reasoningOf(step)}`,
      );
    confirmed = real.terminated && real.reward >= 1;
    if (real.terminated || real.truncated) break;
  }
  if (confirmed) return;
  console.log(`false success on ${trajectory.task.id}: ${trajectory.task.instruction}`);
  console.log(`  start: ${flat(trajectory.initial.text)}`);
  console.log(lines.join('\n'));
}
