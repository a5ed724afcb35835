/**
 * Branched rollouts (issue 53): DreamGym GRPO in the synthetic env with and without groups that
 * start from the buffer's real states, held-out success in the real env, over seeds. Per env and
 * seed: the scripted expert (ε = 0.3) plays BENCH_BRANCHING_OFFLINE (500) train tasks into a
 * buffer, the env's LLM-free model learns it, and each configuration of BENCH_BRANCHING_CONFIGS
 * (`share:horizon:pick[:λ[:τ]]`, comma-separated; default `0:5:uniform,0.5:5:uniform,1:5:uniform`;
 * λ the uncertainty penalty, τ the halt, see `syntheticFactory`'s `uncertainty`)
 * trains a fresh policy — from scratch, or from BC with BENCH_BRANCHING_START=bc — for
 * BENCH_BRANCHING_ITERATIONS (30) iterations of 16 groups × 8, as the demo's DreamGym GRPO row.
 * Each trained policy plays BENCH_BRANCHING_EVAL (200) held-out test tasks in the real env,
 * greedy; it also plays 100 train tasks in the synthetic env it trained in (with its halt and
 * penalty), whose successes are replayed in the real env (the share false there). A row of the same algorithm in the real env with
 * BENCH_BRANCHING_REAL (20,000, the demo's B; 0 leaves it out) real steps gives the reference.
 * BENCH_BRANCHING_ENVS (webshop), BENCH_BRANCHING_SEEDS (3), BENCH_BRANCHING_ALGO (grpo or ppo),
 * BENCH_BRANCHING_TASKS and BENCH_BRANCHING_GROUP (16 × 8), BENCH_BRANCHING_EVAL_TEMPERATURE (0).
 */

import { initTf } from '../src/core/tf.ts';
import type { BranchPick } from '../src/experience/branch-points.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { OracleExperienceModel } from '../src/experience/oracle-model.ts';
import { bufferBranchPoints } from '../src/pipeline/branching.ts';
import {
  envSetup,
  evaluateReal,
  offlineData,
  syntheticFactory,
} from '../src/pipeline/experiment.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { train } from '../src/rl/trainer.ts';
import { syntheticFalsePositives } from './replayed-successes.ts';

const ENVS = (process.env.BENCH_BRANCHING_ENVS ?? 'webshop').split(',');
const SEEDS = Number(process.env.BENCH_BRANCHING_SEEDS ?? 3);
const OFFLINE = Number(process.env.BENCH_BRANCHING_OFFLINE ?? 500);
const ITERATIONS = Number(process.env.BENCH_BRANCHING_ITERATIONS ?? 30);
const EVAL = Number(process.env.BENCH_BRANCHING_EVAL ?? 200);
const START = process.env.BENCH_BRANCHING_START ?? 'scratch';
const ALGO = (process.env.BENCH_BRANCHING_ALGO ?? 'grpo') as 'grpo' | 'ppo';
const CONFIGS = (process.env.BENCH_BRANCHING_CONFIGS ?? '0:5:uniform,0.5:5:uniform,1:5:uniform')
  .split(',')
  .map((c) => {
    const [share, horizon, pick, penalty, halt] = c.split(':');
    return {
      share: Number(share),
      horizon: Number(horizon ?? 5),
      pick: (pick ?? 'uniform') as BranchPick,
      ...(penalty && { penalty: Number(penalty) }),
      ...(halt && { halt: Number(halt) }),
    };
  });
const REPLAY = 100;
/**
 * BENCH_BRANCHING_ORACLE=1 adds a row trained over an ORACLE experience model (the real env
 * answering; measurement only) with the first configuration: the ceiling a perfect model gives.
 */
const ORACLE = process.env.BENCH_BRANCHING_ORACLE === '1';
/** The trainer's groups per iteration and group size (the demo's webshop shape by default). */
const TASKS = Number(process.env.BENCH_BRANCHING_TASKS ?? 16);
const GROUP = Number(process.env.BENCH_BRANCHING_GROUP ?? 8);
/** Evaluation temperature (the household demo samples at 1: greedy, its policy loops). */
const EVAL_TEMPERATURE = Number(process.env.BENCH_BRANCHING_EVAL_TEMPERATURE ?? 0);
/** Real steps of the real-env row of the same algorithm (0: no such row). Default 20,000, the demo's B. */
const REAL_BUDGET = Number(process.env.BENCH_BRANCHING_REAL ?? 20_000);

type Row = { success: number; falsePositive: number; syntheticSuccesses: number; seconds: number };

export default async function branchingBench() {
  await initTf();
  const envs: Record<string, unknown> = {};
  for (const env of ENVS) {
    const seeds: Array<Record<string, Row>> = [];
    for (let seed = 0; seed < SEEDS; seed++) seeds.push(await runSeed(env, seed));
    const names = Object.keys(seeds[0] ?? {});
    const mean = Object.fromEntries(
      names.map((n) => [
        n,
        {
          success: seeds.map((s) => s[n]?.success ?? 0),
          meanSuccess: avg(seeds.map((s) => s[n]?.success ?? 0)),
          meanFalsePositive: avg(seeds.map((s) => s[n]?.falsePositive ?? 0)),
        },
      ]),
    );
    envs[env] = { seeds, mean };
  }
  return {
    algo: ALGO,
    start: START,
    offlineEpisodes: OFFLINE,
    iterations: ITERATIONS,
    evalEpisodes: EVAL,
    configs: CONFIGS,
    envs,
  };
}

async function runSeed(env: string, seed: number): Promise<Record<string, Row>> {
  const setup = envSetup(env, { testTasks: EVAL });
  const offline = await offlineData(setup, { episodes: OFFLINE, epsilon: 0.3, seed });
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  const model = await llmFreeModel(setup.name, buffer);
  const rows: Record<string, Row> = {};
  const startPolicy = () => {
    const policy = new ChoicePolicy({ seed });
    if (START === 'bc') behaviourCloning(policy, offline, { seed });
    return policy;
  };
  const shape = {
    algo: ALGO,
    tasksPerIteration: TASKS,
    groupSize: GROUP,
    evalEvery: 0,
    seed,
    maxEpisodeSteps: setup.maxEpisodeSteps,
  };
  const heldOut = async (policy: ChoicePolicy) =>
    (
      await evaluateReal(policy, setup, {
        episodes: EVAL,
        seed: 100 + seed,
        temperature: EVAL_TEMPERATURE,
      })
    ).success.mean;
  if (REAL_BUDGET > 0) {
    const name = `real ${ALGO.toUpperCase()} (B = ${REAL_BUDGET})`;
    const policy = startPolicy();
    const started = performance.now();
    await train(
      { policy, makeEnv: setup.makeReal, trainTasks: setup.trainTasks },
      { ...shape, iterations: 10_000, maxEnvSteps: REAL_BUDGET },
    );
    const seconds = (performance.now() - started) / 1000;
    const success = await heldOut(policy);
    rows[name] = { success, seconds, falsePositive: 0, syntheticSuccesses: 0 };
    console.log(`${env} seed ${seed} ${name}: held-out ${pct(success)}, ${seconds.toFixed(0)} s`);
    policy.dispose();
  }
  const runs: Array<{ name: string; branching: (typeof CONFIGS)[number]; oracle?: boolean }> =
    CONFIGS.map((branching) => ({
      name: `share ${branching.share}, H ${branching.horizon}, ${branching.pick}${branching.penalty === undefined ? '' : `, λ ${branching.penalty}`}${branching.halt === undefined ? '' : `, τ ${branching.halt}`}`,
      branching,
    }));
  if (ORACLE) {
    const branching = CONFIGS[0] as (typeof CONFIGS)[number];
    runs.push({ name: `ORACLE model, share ${branching.share}`, branching, oracle: true });
  }
  for (const { name, branching, oracle } of runs) {
    const { penalty, halt } = branching;
    const makeEnv = syntheticFactory(
      setup,
      buffer,
      oracle ? new OracleExperienceModel(setup.makeReal) : model,
      {
        uncertainty: {
          ...(penalty !== undefined && { penalty }),
          ...(halt !== undefined && { halt }),
        },
      },
    );
    const policy = startPolicy();
    const started = performance.now();
    const points = await bufferBranchPoints(buffer, setup.name, policy, branching.pick);
    await train(
      {
        policy,
        makeEnv,
        trainTasks: setup.trainTasks,
        provenance: 'synthetic',
        branchPoints: points.branchPoints,
      },
      {
        ...shape,
        iterations: ITERATIONS,
        branching: { share: branching.share, horizon: branching.horizon },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const success = await heldOut(policy);
    // In the env it trained in (its halt and penalty too): the successes its trainer was paid for.
    rows[name] = {
      success,
      seconds,
      ...(await syntheticFalsePositives(setup, makeEnv, policy, seed, REPLAY)),
    };
    console.log(
      `${env} seed ${seed} ${name}: held-out ${pct(success)}, ${pct(rows[name].falsePositive)} of ${rows[name].syntheticSuccesses} synthetic successes false on replay, ${seconds.toFixed(0)} s`,
    );
    policy.dispose();
  }
  await buffer.close();
  return rows;
}

const avg = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
