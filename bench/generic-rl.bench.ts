/**
 * Held-out real success of policies trained with the generic LLM-free experience model (issue
 * 37), on the test beds nobody modelled by hand (support-desk, keys-and-doors, booking), over
 * BENCH_GENERIC_RL_SEEDS seeds (default 3). Per env and seed: the scripted expert (ε = 0.2) plays
 * BENCH_GENERIC_RL_OFFLINE (300) train tasks into a buffer; then, for the choice policy,
 * - BC: behaviour cloning of the offline successes (validation-split early stopping);
 * - real GRPO from BC: GRPO in the real env;
 * - DreamGym GRPO from BC and from scratch: GRPO in the synthetic env of the generic model;
 * every GRPO row with the same episode budget (BENCH_GENERIC_RL_ITERATIONS iterations of
 * 16 tasks × 8 episodes), GRPO's KL penalty towards the starting policy (β =
 * BENCH_GENERIC_RL_KL, default 5) and the trainer's other defaults (the entropy bonus,
 * uninformative groups left out of the update). Each row's policy plays BENCH_GENERIC_RL_EVAL (100) held-out test tasks in
 * the real env, greedy. For the DreamGym rows, the trained policy also plays 100 train tasks in
 * the synthetic env, and its synthetic successes are replayed in the real env: the share that
 * fails there is the false-positive rate, and the share of its training episodes whose ending the
 * synthetic env left unjudged (out of the update) is recorded. BENCH_GENERIC_RL_ENVS narrows the
 * envs; BENCH_GENERIC_RL_SCRATCH=0 leaves out the from-scratch row; BENCH_GENERIC_RL_BRANCH=P
 * branches that share of the DreamGym rows' groups from real states of the buffer.
 *
 * Model-based selection (BENCH_GENERIC_RL_VALIDATION, default 50; 0 turns it off): the last V
 * offline tasks are held out of the DreamGym rows' training; the policy is evaluated on them in
 * the synthetic env before training and after every iteration, and the trainer hands back the
 * best of those weights (`keepBest`: the BC start where no iteration beat it). No real step and no
 * test task is used to choose. The rows report both: the last iteration's weights ("from BC") and
 * the kept ones ("kept by synthetic validation"), with the iteration kept (−1: BC's weights).
 */

import { initTf } from '../src/core/tf.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
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

const ENVS = (process.env.BENCH_GENERIC_RL_ENVS ?? 'support-desk,keys-and-doors,booking').split(
  ',',
);
const SEEDS = Number(process.env.BENCH_GENERIC_RL_SEEDS ?? 3);
const OFFLINE = Number(process.env.BENCH_GENERIC_RL_OFFLINE ?? 300);
const ITERATIONS = Number(process.env.BENCH_GENERIC_RL_ITERATIONS ?? 10);
const EVAL = Number(process.env.BENCH_GENERIC_RL_EVAL ?? 100);
const SCRATCH = process.env.BENCH_GENERIC_RL_SCRATCH !== '0';
const REPLAY = 100;
const KL = Number(process.env.BENCH_GENERIC_RL_KL ?? 5);
const VALIDATION = Number(process.env.BENCH_GENERIC_RL_VALIDATION ?? 50);
/** Share of the DreamGym rows' groups branched from real states (H = 5). Default 0. */
const BRANCH_SHARE = Number(process.env.BENCH_GENERIC_RL_BRANCH ?? 0);
const GRPO = {
  algo: 'grpo' as const,
  tasksPerIteration: 16,
  groupSize: 8,
  evalEvery: 0,
  klCoef: KL,
};

export default async function genericRlBench() {
  await initTf();
  const envs: Record<string, unknown> = {};
  for (const env of ENVS) {
    const seeds = [];
    for (let seed = 0; seed < SEEDS; seed++) seeds.push(await runSeed(env, seed));
    envs[env] = { seeds, mean: meanRows(seeds) };
  }
  return {
    offlineEpisodes: OFFLINE,
    iterations: ITERATIONS,
    klCoef: KL,
    validationTasks: VALIDATION,
    episodesPerRow: ITERATIONS * GRPO.tasksPerIteration * GRPO.groupSize,
    evalEpisodes: EVAL,
    envs,
  };
}

type Row = {
  success: number;
  falsePositive?: number;
  syntheticSuccesses?: number;
  /** Share of the training rollouts' episodes left out of the update as unjudged. */
  unjudged?: number;
  /** Kept by synthetic validation: the iteration whose weights were kept (−1: the start). */
  keptIteration?: number;
};

async function runSeed(env: string, seed: number): Promise<Record<string, Row>> {
  const setup = envSetup(env, { trainTasks: OFFLINE, testTasks: EVAL });
  const offline = await offlineData(setup, { episodes: OFFLINE, epsilon: 0.2, seed: seed + 1 });
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  const model = await llmFreeModel(setup.name, buffer, { experience: 'generic' });
  const synthetic = syntheticFactory(setup, buffer, model);
  const evaluate = async (policy: ChoicePolicy) =>
    (await evaluateReal(policy, setup, { episodes: EVAL, seed: 100 + seed })).success.mean;
  const config = { ...GRPO, iterations: ITERATIONS, seed, maxEpisodeSteps: setup.maxEpisodeSteps };
  const cloned = () => {
    const policy = new ChoicePolicy({ seed, family: setup.name });
    behaviourCloning(policy, offline, { seed });
    return policy;
  };
  const rows: Record<string, Row> = {};
  const log = (name: string) =>
    console.log(
      `${env} seed ${seed} ${name}: held-out ${pct(rows[name]?.success ?? 0)}${rows[name]?.keptIteration === undefined ? '' : ` (iteration ${rows[name]?.keptIteration} kept)`}${rows[name]?.falsePositive === undefined ? '' : `, replay false-positive ${pct(rows[name]?.falsePositive ?? 0)} of ${rows[name]?.syntheticSuccesses} synthetic successes, ${pct(rows[name]?.unjudged ?? 0)} of training episodes unjudged`}`,
    );

  const bc = cloned();
  rows.BC = { success: await evaluate(bc) };
  log('BC');

  const real = cloned();
  await train(
    {
      policy: real,
      makeEnv: setup.makeReal,
      trainTasks: setup.trainTasks,
      provenance: 'real-online',
    },
    config,
  );
  rows['real GRPO (from BC)'] = { success: await evaluate(real) };
  log('real GRPO (from BC)');

  // The DreamGym rows train on the offline tasks but the last VALIDATION, which choose the weights.
  const dreamTasks = setup.trainTasks.slice(0, setup.trainTasks.length - VALIDATION);
  const validationTasks = setup.trainTasks.slice(dreamTasks.length);
  const dreamRows: Array<[string, () => ChoicePolicy]> = [['DreamGym GRPO (from BC)', cloned]];
  if (SCRATCH)
    dreamRows.push([
      'DreamGym GRPO (from scratch)',
      () => new ChoicePolicy({ seed, family: setup.name }),
    ]);
  for (const [name, start] of dreamRows) {
    const policy = start();
    const iterations = config.iterations;
    // The last iteration's weights, measured before the trainer hands back the kept ones.
    let last: Row | undefined;
    const history = await train(
      {
        policy,
        makeEnv: synthetic,
        trainTasks: dreamTasks,
        provenance: 'synthetic',
        ...(BRANCH_SHARE > 0 && {
          branchPoints: (await bufferBranchPoints(buffer, setup.name, policy)).branchPoints,
        }),
        ...(VALIDATION > 0 && { makeEvalEnv: synthetic, evalTasks: validationTasks }),
        onIteration: async (m) => {
          if (m.iteration === iterations - 1) {
            last = {
              success: await evaluate(policy),
              ...(await syntheticFalsePositives(setup, synthetic, policy, seed, REPLAY)),
            };
          }
        },
      },
      {
        ...(VALIDATION > 0
          ? { ...config, evalEvery: 1, evalEpisodes: VALIDATION, keepBest: true }
          : config),
        branching: { share: BRANCH_SHARE, horizon: 5 },
      },
    );
    const episodes = history.reduce((n, m) => n + m.rollout.episodes, 0);
    const unjudged = history.reduce((n, m) => n + m.rollout.unjudged, 0) / Math.max(1, episodes);
    rows[name] = { ...(last as Row), unjudged };
    log(name);
    const kept = history.at(-1)?.kept;
    if (kept) {
      const keptName = `${name}, kept by synthetic validation`;
      rows[keptName] = {
        success: kept.iteration === iterations - 1 ? (last as Row).success : await evaluate(policy),
        keptIteration: kept.iteration,
      };
      log(keptName);
    }
  }
  await buffer.close();
  return rows;
}

function meanRows(seeds: ReadonlyArray<Record<string, Row>>): Record<string, Row> {
  const names = Object.keys(seeds[0] ?? {});
  return Object.fromEntries(
    names.map((name) => {
      const rows = seeds.map((s) => s[name] as Row);
      const mean = (pick: (r: Row) => number | undefined) => {
        const xs = rows.map(pick).filter((x): x is number => x !== undefined);
        return xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;
      };
      const falsePositive = mean((r) => r.falsePositive);
      const unjudged = mean((r) => r.unjudged);
      return [
        name,
        {
          success: mean((r) => r.success) ?? 0,
          ...(falsePositive !== undefined && { falsePositive }),
          ...(unjudged !== undefined && { unjudged }),
        },
      ];
    }),
  );
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}
