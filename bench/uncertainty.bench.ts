/**
 * The LLM-free models' `info.uncertainty` (issue 53) on the synthetic steps of a BC policy and of
 * the scripted expert, and whether it tells the synthetic successes the real env refutes from
 * those it confirms: what makes MOPO's penalty (λ × an episode's summed uncertainty) useful. Per
 * env and seed: the expert (ε = 0.3) plays BENCH_UNCERTAINTY_OFFLINE (500) train tasks into a
 * buffer, and the env's LLM-free model learns it. The choice policy cloned from those episodes
 * (BC) and the expert (ε = 0.3) each play BENCH_UNCERTAINTY_TASKS (200) train tasks in the
 * synthetic env twice: the offline tasks (the buffer holds a real episode of each) and as many
 * train tasks past them (unseen). Reported per policy and split: the share of steps at 0, the
 * median, the share over 0.5 and the mean of the steps' uncertainty; then each synthetic success
 * replayed alone in the real env (`replayInReal`), and the summed (and largest) uncertainty of
 * those it confirms beside those it refutes, with the AUC: the chance a refuted success carries
 * more summed uncertainty than a confirmed one (ties count half; 0.5 tells nothing).
 * BENCH_UNCERTAINTY_ENVS (webshop,household), BENCH_UNCERTAINTY_SEEDS (2).
 */
import { initTf } from '../src/core/tf.ts';
import { isSuccess, type Trajectory } from '../src/core/types.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { envSetup, offlineData, syntheticFactory } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import type { Policy } from '../src/policy/policy.ts';
import { makePolicy } from '../src/policy/registry.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { rollout } from '../src/rl/rollout.ts';

const ENVS = (process.env.BENCH_UNCERTAINTY_ENVS ?? 'webshop,household').split(',');
const SEEDS = Number(process.env.BENCH_UNCERTAINTY_SEEDS ?? 2);
const OFFLINE = Number(process.env.BENCH_UNCERTAINTY_OFFLINE ?? 500);
const TASKS = Number(process.env.BENCH_UNCERTAINTY_TASKS ?? 200);

export default async function uncertaintyBench() {
  await initTf();
  const envs: Record<string, unknown> = {};
  for (const env of ENVS) {
    const seeds = [];
    for (let seed = 0; seed < SEEDS; seed++) seeds.push(await runSeed(env, seed));
    envs[env] = seeds;
  }
  return { offlineEpisodes: OFFLINE, tasksPerSplit: TASKS, seeds: SEEDS, envs };
}

async function runSeed(env: string, seed: number) {
  const setup = envSetup(env, { trainTasks: OFFLINE + TASKS });
  const offline = await offlineData(setup, { episodes: OFFLINE, epsilon: 0.3, seed });
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  const model = await llmFreeModel(setup.name, buffer);
  const synthetic = syntheticFactory(setup, buffer, model);
  const bc = new ChoicePolicy({ seed, family: setup.name });
  behaviourCloning(bc, offline, { seed });
  const policies: Array<[string, Policy]> = [
    ['BC', bc],
    ['expert (ε = 0.3)', makePolicy('expert', { env: setup.name, epsilon: 0.3 })],
  ];
  const splits = {
    'offline tasks': setup.trainTasks.slice(0, TASKS),
    'unseen train tasks': setup.trainTasks.slice(OFFLINE, OFFLINE + TASKS),
  };
  const rows: Record<string, unknown> = {};
  for (const [name, policy] of policies) {
    for (const [split, tasks] of Object.entries(splits)) {
      const episodes = await rollout({
        makeEnv: synthetic,
        policy,
        tasks,
        seed: 300 + seed,
        provenance: 'synthetic',
      });
      const trajectories = episodes.map((e) => e.trajectory);
      const row = { steps: distribution(trajectories), ...(await replayed(setup, trajectories)) };
      rows[`${name}, ${split}`] = row;
      console.log(`${env} seed ${seed} ${name}, ${split}: ${JSON.stringify(row)}`);
    }
  }
  bc.dispose();
  await buffer.close();
  return rows;
}

/** The steps' uncertainty: how many, the share at 0, the median, the share over 0.5, the mean. */
function distribution(trajectories: readonly Trajectory[]) {
  const us = trajectories
    .flatMap((t) => t.steps.map((s) => s.info?.uncertainty))
    .filter((u): u is number => typeof u === 'number')
    .sort((a, b) => a - b);
  const steps = trajectories.reduce((n, t) => n + t.steps.length, 0);
  return {
    steps,
    withUncertainty: us.length,
    atZero: round(us.filter((u) => u === 0).length / Math.max(1, us.length)),
    median: round(us[Math.floor(us.length / 2)] ?? Number.NaN),
    overHalf: round(us.filter((u) => u > 0.5).length / Math.max(1, us.length)),
    mean: round(mean(us)),
  };
}

/** Each synthetic success replayed alone in the real env, its uncertainty by the verdict. */
async function replayed(setup: ReturnType<typeof envSetup>, trajectories: readonly Trajectory[]) {
  const real = setup.makeReal();
  const summed = { confirmed: [] as number[], refuted: [] as number[] };
  const largest = { confirmed: [] as number[], refuted: [] as number[] };
  try {
    for (const trajectory of trajectories.filter((t) => isSuccess(t))) {
      const us = trajectory.steps.map((s) => Number(s.info?.uncertainty ?? 0));
      const { confirmed } = await replayInReal({ trajectories: [trajectory], realEnv: real });
      const verdict = confirmed > 0 ? 'confirmed' : 'refuted';
      summed[verdict].push(us.reduce((a, b) => a + b, 0));
      largest[verdict].push(Math.max(0, ...us));
    }
  } finally {
    await real.close();
  }
  return {
    successes: summed.confirmed.length + summed.refuted.length,
    refuted: summed.refuted.length,
    summed: {
      confirmedMean: round(mean(summed.confirmed)),
      refutedMean: round(mean(summed.refuted)),
      auc: round(auc(summed.refuted, summed.confirmed)),
    },
    largest: {
      confirmedMean: round(mean(largest.confirmed)),
      refutedMean: round(mean(largest.refuted)),
      auc: round(auc(largest.refuted, largest.confirmed)),
    },
  };
}

/** P(a random `high` exceeds a random `low`), ties counting half (Mann–Whitney). NaN if either is empty. */
function auc(high: readonly number[], low: readonly number[]): number {
  if (high.length === 0 || low.length === 0) return Number.NaN;
  let wins = 0;
  for (const h of high) for (const l of low) wins += h > l ? 1 : h === l ? 0.5 : 0;
  return wins / (high.length * low.length);
}

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
const round = (x: number) => Math.round(x * 1000) / 1000;
