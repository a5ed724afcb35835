/**
 * How far a BC policy's synthetic successes hold in the real env:
 * `npx tsx scripts/synthetic-replay.ts --env booking [--experience generic] [--offline 300]
 * [--seed 0] [--tasks 100]`. The scripted expert (ε = 0.2, seed + 1) plays the offline episodes
 * into a buffer; the choice policy is cloned from them; it plays the first train tasks in the
 * synthetic env of the chosen LLM-free experience model, and each episode's actions are replayed
 * in the real env. Prints the synthetic successes, how many the real env confirms, the false
 * positives' share and the real successes the synthetic env failed. The generic-rl bench's
 * settings, seed for seed, with BC in place of a trained policy: a probe of the experience model
 * alone, before any RL moves the policy where the buffer has less ground.
 */
import { parseArgs } from 'node:util';
import { initTf } from '../src/core/tf.ts';
import { type ExperienceChoice, llmFreeModel } from '../src/experience/llm-free.ts';
import { envSetup, offlineData, syntheticFactory } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { rollout } from '../src/rl/rollout.ts';

const { values } = parseArgs({
  options: {
    env: { type: 'string', default: 'booking' },
    experience: { type: 'string', default: 'generic' },
    offline: { type: 'string', default: '300' },
    seed: { type: 'string', default: '0' },
    tasks: { type: 'string', default: '100' },
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
const episodes = await rollout({
  makeEnv: syntheticFactory(setup, buffer, model),
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
await real.close();
await buffer.close();
console.log(
  `${setup.name}, ${model.id}, seed ${seed}: ${report.syntheticSuccesses} synthetic successes of ${report.episodes}, ${report.confirmed} confirmed in the real env, false positives ${(100 * report.falsePositiveShare).toFixed(0)}%; real successes the synthetic env failed: ${report.missed}`,
);
