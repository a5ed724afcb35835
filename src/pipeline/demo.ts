import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Rng } from '../core/rng.ts';
import { initTf } from '../core/tf.ts';
import type { Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import type { CurriculumReport } from '../curriculum/curriculum-report.ts';
import { collectingSuccesses } from '../envs/wrappers/record-episodes.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import { type ExperienceChoice, llmFreeModel } from '../experience/llm-free.ts';
import { globalLlmStats, type LlmStatsSnapshot } from '../llm/stats.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import type { CurvePoint } from '../report/plots.ts';
import { type RankAgreement, rankAgreement } from '../report/rank-agreement.ts';
import { acrossSeeds, type Estimate } from '../report/stats.ts';
import { behaviourCloning } from '../rl/bc.ts';
import {
  type IterationMetrics,
  type TaskSchedule,
  type TrainerConfig,
  train,
} from '../rl/trainer.ts';
import { type BranchingOptions, bufferBranchPoints } from './branching.ts';
import { DEFAULT_REAL_SHARE } from './config.ts';
import { DPO_ROW, describeDpoFit, dpoFromOffline } from './dpo-baseline.ts';
import {
  type EnvSetup,
  type Evaluation,
  envSetup,
  evaluateIn,
  evaluateReal,
  offlineData,
  type SyntheticOptions,
  syntheticFactory,
} from './experiment.ts';
import { type ReplayReport, replayInReal } from './fidelity.ts';

export interface DemoOptions {
  env: string;
  seed: number;
  /** Offline real episodes (noisy expert) that seed the buffer and the BC baseline. */
  offlineEpisodes: number;
  epsilon: number;
  /** The DPO row's β. Default `CHOICE_POLICY_DPO_BETA` (1; see there why not DPO's usual 0.1). */
  dpoBeta?: number;
  /** B: real env steps the real-env RL baselines may use. */
  realBudget: number;
  /**
   * Real steps of S2R, and of the real-env GRPO row with the same small budget (S2R's fair
   * comparison). Default B / 10.
   */
  smallBudget?: number;
  /**
   * What one real env step costs where the real env is not ours to measure (a web app, a robot):
   * seconds and money, for the report's cost table. Default: our own env's measured time, no money.
   */
  realStepSeconds?: number;
  realStepCost?: number;
  /** Run every row on this many seeds (`seed`, `seed + 1`, …). Default 1. */
  seeds?: number;
  /** Training iterations in the synthetic env. */
  syntheticIterations: number;
  trainer: Partial<TrainerConfig>;
  /** Held-out test tasks per evaluation. */
  evalEpisodes: number;
  /**
   * Sampling temperature of every evaluation; default 0 (greedy). A softmax policy without a full
   * memory can loop when greedy where the sampled policy that RL optimised does not (household).
   */
  evalTemperature?: number;
  outDir: string;
  /**
   * Start every RL row (real, DreamGym, and so S2R) from the BC policy instead of random weights,
   * and say so in the row names. Household needs it: its 50-step episodes with a sparse reward
   * almost never succeed at random, so RL from scratch has nothing to learn from. Default false.
   */
  warmStart?: boolean;
  /**
   * Run the ablation table (no retrieval, no history, no co-evolution; no curriculum when one is
   * wired) instead.
   */
  ablations?: boolean;
  /**
   * Share of a co-evolving DreamGym row's demonstrations that are real (the rest are its own
   * written-back synthetic transitions). Default `dreamgym run`'s, 0.75.
   */
  realShare?: number;
  /**
   * The main table's DreamGym rows co-evolve as the ablation table's full row does. Default
   * false: the LLM-free models barely read demonstrations (the ablations' − co-evolution row
   * ties with the full one on webshop), and co-evolving costs ≈ 4.6× the time of a webshop row.
   */
  coEvolve?: boolean;
  /** A curriculum for synthetic training, made per run (see src/curriculum). */
  curriculum?: (setup: EnvSetup, seed: number) => TaskSchedule;
  /**
   * The DreamGym rows' branched rollouts: that share of their groups start from real states of
   * the buffer (see `TrainerConfig.branching`). Default: none, every group from a task.
   */
  branching?: BranchingOptions;
  /**
   * The experience model without reasoning (the LLM model's − reasoning ablation): with
   * `ablations`, a row of its own. Absent for the LLM-free models, which do not reason.
   */
  experienceModelWithoutReasoning?: (
    setup: EnvSetup,
    buffer: ReplayBuffer,
  ) => ExperienceModel | Promise<ExperienceModel>;
  /**
   * Which LLM-free experience model the DreamGym rows train in when `experienceModel` is not
   * given (see `llmFreeModel`); default `auto`, the env's hand-written model where it has one.
   */
  experience?: ExperienceChoice;
  /** The experience model; default the LLM-free one learnt from the buffer (`experience`). */
  experienceModel?: (
    setup: EnvSetup,
    buffer: ReplayBuffer,
  ) => ExperienceModel | Promise<ExperienceModel>;
  onProgress?: (line: string) => void;
}

/** One method on one seed. */
export interface SeedRow {
  seed: number;
  /** Held-out success with its Wilson interval over the test episodes. */
  success: Estimate;
  reward: Estimate;
  /** Real env steps used in training (offline data not included; it is the same for every row). */
  realInteractions: number;
  syntheticInteractions: number;
  seconds: number;
  /** Held-out success during training. */
  curve: CurvePoint[];
  /** What the row's tasks were and how true its synthetic successes were (DreamGym GRPO rows). */
  curriculum?: CurriculumStats;
  /**
   * The row's policy on the same held-out tasks in the synthetic env (the seed's offline buffer,
   * nothing written back): does the synthetic env rank the rows as the real one does?
   */
  synthetic?: Estimate;
  /**
   * The row's policy on the offline episodes' own tasks (the synthetic env's ground), in the
   * real env and in the synthetic one.
   */
  offlineTasks?: { real: Estimate; synthetic: Estimate };
}

/** Synthetic successes replayed per task origin by {@link CurriculumStats}. */
const REPLAYED_SUCCESSES = 100;

/**
 * Why a curriculum helps a DreamGym row or not: how informative its training tasks were, what the
 * curriculum picked, and whether the synthetic successes it trained on hold in the real env.
 */
export interface CurriculumStats {
  /** Mean over iterations of the share of rollout groups whose rewards varied (GRPO's signal). */
  informativeShare: number;
  /** What the curriculum selected; absent for a row trained on the uniform seed tasks. */
  selection?: CurriculumReport;
  /**
   * Up to {@link REPLAYED_SUCCESSES} synthetic successes of seed tasks and as many of generated
   * ones (sampled), replayed action by action in the real env: `falsePositiveShare` is the share
   * of rewards the policy learnt from wrongly.
   */
  replay: { seed: ReplayReport; generated: ReplayReport };
}

/**
 * One method over every seed: `success` is the mean of the seeds' success rates with a Student-t
 * interval across seeds (with one seed, that seed's Wilson interval); `reward` likewise; the
 * interactions are the seeds' mean; `seconds` their sum.
 */
export interface DemoRow extends Omit<SeedRow, 'seed'> {
  method: string;
  seeds: SeedRow[];
}

/** One seed's sim/real rank agreement on the held-out tasks and on the offline tasks. */
export type SeedAgreement = RankAgreement & { seed: number; offlineTasks: RankAgreement };

export interface DemoResult {
  env: string;
  /** Of the first seed's offline data. */
  offlineTransitions: number;
  offlineSuccessRate: number;
  /** The id of the experience model the DreamGym rows trained in (`llm-free/generic`, …). */
  experienceModel: string;
  rows: DemoRow[];
  /**
   * Per seed, Kendall's τ between the rows' held-out success in the synthetic env and in the
   * real one, with its bootstrap interval (see `rankAgreement`); `offlineTasks` the same on the
   * offline episodes' tasks, where the model has ground to judge.
   */
  rankAgreement: Array<SeedAgreement>;
  /** LLM calls the demo made (the experience model's, a judge's), tokens and money (0 LLM-free). */
  llm: Pick<LlmStatsSnapshot, 'calls' | 'promptTokens' | 'completionTokens' | 'costUsd'>;
  options: Omit<
    DemoOptions,
    'onProgress' | 'curriculum' | 'experienceModel' | 'experienceModelWithoutReasoning'
  >;
}

/**
 * The paper's Table 1 on a built-in env, offline: untrained, BC, DPO from BC on expert-labelled
 * pairs of the offline states, real-env GRPO/PPO with budget
 * B, real-env GRPO with the small budget (B/10), DreamGym GRPO/PPO (synthetic only), and
 * DreamGym-S2R (synthetic, then the small budget of real steps); every row on each of `seeds`
 * seeds, with an interval across seeds. With `ablations`, Table 2's structure instead: DreamGym
 * GRPO with and without curriculum, retrieval, history and co-evolution. Every DreamGym row
 * co-evolves as `dreamgym run` does, unless it is the ablation of that.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  await initTf();
  await mkdir(options.outDir, { recursive: true });
  const llmBefore = globalLlmStats.snapshot();
  const seeds = Array.from({ length: options.seeds ?? 1 }, (_, i) => options.seed + i);
  const perSeed: Array<{
    rows: Array<SeedRow & { method: string }>;
    offline: Trajectory[];
    experienceModel: string;
    rankAgreement: SeedAgreement;
  }> = [];
  for (const seed of seeds) {
    if (seeds.length > 1) options.onProgress?.(`seed ${seed}`);
    perSeed.push(await runSeed(options, seed));
  }
  const methods = perSeed[0]?.rows.map((r) => r.method) ?? [];
  const rows: DemoRow[] = methods.map((method) => {
    const runs = perSeed.map((p) => {
      const { method: _, ...row } = p.rows.find((r) => r.method === method) as SeedRow & {
        method: string;
      };
      return row;
    });
    const only = runs.length === 1 ? runs[0] : undefined;
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    return {
      method,
      success: only?.success ?? acrossSeeds(runs.map((r) => r.success.mean)),
      reward: only?.reward ?? acrossSeeds(runs.map((r) => r.reward.mean)),
      realInteractions: Math.round(mean(runs.map((r) => r.realInteractions))),
      syntheticInteractions: Math.round(mean(runs.map((r) => r.syntheticInteractions))),
      seconds: runs.reduce((a, r) => a + r.seconds, 0),
      curve: runs.flatMap((r) => r.curve),
      seeds: runs,
    };
  });
  const offline = perSeed[0]?.offline ?? [];
  const {
    onProgress: _,
    curriculum: __,
    experienceModel: ___,
    experienceModelWithoutReasoning: ____,
    ...recorded
  } = options;
  const result: DemoResult = {
    env: options.env,
    offlineTransitions: offline.reduce((s, t) => s + t.steps.length, 0),
    offlineSuccessRate: offline.filter((t) => t.steps.at(-1)?.reward === 1).length / offline.length,
    experienceModel: perSeed[0]?.experienceModel ?? '',
    rows,
    rankAgreement: perSeed.map((p) => p.rankAgreement),
    llm: llmSince(llmBefore),
    options: recorded,
  };
  await writeFile(join(options.outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** Every row on one seed. */
async function runSeed(
  options: DemoOptions,
  seed: number,
): Promise<{
  rows: Array<SeedRow & { method: string }>;
  offline: Trajectory[];
  experienceModel: string;
  rankAgreement: SeedAgreement;
}> {
  const log = options.onProgress ?? (() => {});
  const setup = envSetup(options.env, { testTasks: options.evalEpisodes });
  log(`collecting ${options.offlineEpisodes} offline expert episodes (ε = ${options.epsilon})`);
  const offline = await offlineData(setup, {
    episodes: options.offlineEpisodes,
    epsilon: options.epsilon,
    seed,
  });
  const buffer = await ReplayBuffer.open({
    path: join(options.outDir, (options.seeds ?? 1) > 1 ? `buffer-${seed}.db` : 'buffer.db'),
    // Encoded on this thread: the demo's batches are small, and the threaded encoder's worker,
    // when it never reported ready, left close() waiting forever (exit code 13, no table).
    encoder: new TransitionEncoder(),
  });
  await buffer.add(offline);
  const makeModel =
    options.experienceModel ??
    ((s, b) => llmFreeModel(s.name, b, { experience: options.experience ?? 'auto' }));
  const model = await makeModel(setup, buffer);
  log(`experience model ${model.id}`);
  const held = {
    episodes: options.evalEpisodes,
    seed: seed + 1,
    temperature: options.evalTemperature ?? 0,
  };
  const evaluate = (policy: ChoicePolicy) => evaluateReal(policy, setup, held);
  // The synthetic env as the offline data made it (frozen), for the rows' rank agreement.
  const frozenSynthetic = syntheticFactory(setup, buffer, model, { writeBack: false });
  const offlineTasks = offline.map((t) => t.task);
  const trainer = (overrides: Partial<TrainerConfig> = {}): Partial<TrainerConfig> => ({
    evalEpisodes: options.evalEpisodes,
    evalTemperature: options.evalTemperature ?? 0,
    maxEpisodeSteps: setup.maxEpisodeSteps,
    seed,
    ...options.trainer,
    ...overrides,
  });
  const rows: Array<SeedRow & { method: string }> = [];
  const bcDir = join(options.outDir, `bc-policy-${seed}`);
  let cloned: Promise<void> | undefined;
  /** BC on the offline data, trained once per seed and saved; each call loads a fresh copy. */
  const clonedPolicy = async () => {
    cloned ??= (async () => {
      const policy = new ChoicePolicy({ seed, family: setup.name });
      // A fixed 8 epochs, as the README's tables were measured (no validation split).
      behaviourCloning(policy, offline, { seed, validationShare: 0 });
      await policy.save(bcDir);
      policy.dispose();
    })();
    await cloned;
    return ChoicePolicy.load(bcDir);
  };
  /** The policy an RL row starts from. */
  const startPolicy = async () =>
    options.warmStart ? clonedPolicy() : new ChoicePolicy({ seed, family: setup.name });
  const from = options.warmStart ? ', from BC' : '';
  const row = async (
    method: string,
    body: () => Promise<
      Omit<SeedRow, 'seed' | 'seconds' | 'success' | 'reward'> & { policy: ChoicePolicy }
    >,
  ) => {
    log(`${method}: training`);
    const started = performance.now();
    const { policy, ...rest } = await body();
    const result: Evaluation = await evaluate(policy);
    const seconds = (performance.now() - started) / 1000;
    const synthetic = await evaluateIn(frozenSynthetic, policy, setup, held);
    const onOffline = { ...held, tasks: offlineTasks };
    const offlineTaskResults = {
      real: (await evaluateIn(setup.makeReal, policy, setup, onOffline)).success,
      synthetic: (await evaluateIn(frozenSynthetic, policy, setup, onOffline)).success,
    };
    const done = {
      method,
      seed,
      success: result.success,
      reward: result.reward,
      synthetic: synthetic.success,
      offlineTasks: offlineTaskResults,
      ...rest,
      seconds,
    };
    rows.push(done);
    log(
      `${method}: held-out success ${(100 * result.success.mean).toFixed(1)}%, reward ${result.reward.mean.toFixed(3)} (${done.seconds.toFixed(0)} s)`,
    );
    return policy;
  };
  const progress = (method: string) => (m: IterationMetrics) =>
    log(
      `${method}: iter ${m.iteration + 1} rollout success ${(100 * m.rollout.successRate).toFixed(1)}%${m.eval ? `, held-out ${(100 * m.eval.successRate).toFixed(1)}%` : ''} (${m.envSteps} steps)`,
    );
  const curveOf = (method: string, history: IterationMetrics[], offset = 0): CurvePoint[] =>
    history.flatMap((m) =>
      m.eval ? [{ method, seed, steps: offset + m.envSteps, success: m.eval.successRate }] : [],
    );

  const realRl = (algo: 'grpo' | 'ppo', budget: number, start?: ChoicePolicy) => async () => {
    const policy = start ?? (await startPolicy());
    const method = `${algo.toUpperCase()} (real, ${budget})`;
    const history = await train(
      {
        policy,
        makeEnv: setup.makeReal,
        trainTasks: setup.trainTasks,
        makeEvalEnv: setup.makeReal,
        evalTasks: setup.testTasks,
        onIteration: progress(method),
      },
      trainer({ algo, iterations: 10_000, maxEnvSteps: budget }),
    );
    const used = history.at(-1)?.envSteps ?? 0;
    return {
      policy,
      realInteractions: used,
      syntheticInteractions: 0,
      curve: curveOf(method, history),
    };
  };
  /**
   * DreamGym RL in the synthetic env. A co-evolving row (the default) gets a buffer of its own
   * holding the offline data, writes its synthetic episodes back into it, mixes them into its
   * demonstrations at `realShare`, and refreshes its model between iterations (a no-op here: no
   * real episodes arrive mid-row); its own buffer keeps one row's episodes out of the next's. A
   * frozen row trains on the seed's shared buffer as it is, on real demonstrations only.
   */
  const dreamRl =
    (
      algo: 'grpo' | 'ppo',
      method: string,
      {
        synthetic = {},
        useCurriculum = true,
        frozen = false,
        explain = false,
        experienceModel,
        branched = true,
      }: {
        synthetic?: Pick<SyntheticOptions, 'k' | 'history'>;
        useCurriculum?: boolean;
        frozen?: boolean;
        /** Branch as `options.branching` says (false: every group from a task's start). */
        branched?: boolean;
        /** Record {@link CurriculumStats} (replays a sample of its synthetic successes). */
        explain?: boolean;
        /** Over the row's buffer; default the demo's experience model. */
        experienceModel?: (buffer: ReplayBuffer) => ExperienceModel | Promise<ExperienceModel>;
      } = {},
    ) =>
    async () => {
      const own = frozen
        ? undefined
        : await ReplayBuffer.open({ encoder: new TransitionEncoder() });
      try {
        if (own) await own.add(offline);
        const rowBuffer = own ?? buffer;
        const rowModel = experienceModel
          ? await experienceModel(rowBuffer)
          : own
            ? await makeModel(setup, own)
            : model;
        const policy = await startPolicy();
        const schedule = useCurriculum ? options.curriculum?.(setup, seed) : undefined;
        const makeSynthetic = syntheticFactory(
          setup,
          rowBuffer,
          rowModel,
          frozen
            ? { ...synthetic, writeBack: false, realShare: 1 }
            : {
                ...synthetic,
                writeBack: true,
                realShare: options.realShare ?? DEFAULT_REAL_SHARE,
              },
        );
        const successes: Trajectory[] = [];
        const branchingOptions =
          branched && options.branching?.share ? options.branching : undefined;
        const branching = branchingOptions
          ? await bufferBranchPoints(rowBuffer, setup.name, policy, branchingOptions.pick)
          : undefined;
        const history = await train(
          {
            policy,
            makeEnv: explain
              ? collectingSuccesses(makeSynthetic, successes, 'synthetic')
              : makeSynthetic,
            trainTasks: setup.trainTasks,
            makeEvalEnv: setup.makeReal,
            evalTasks: setup.testTasks,
            provenance: 'synthetic',
            onIteration: async (m) => {
              progress(method)(m);
              if (!frozen) await rowModel.refresh?.();
            },
            ...(schedule && { schedule }),
            ...(branching && { branchPoints: branching.branchPoints }),
          },
          trainer({
            algo,
            iterations: options.syntheticIterations,
            ...(branchingOptions && {
              branching: { share: branchingOptions.share, horizon: branchingOptions.horizon },
            }),
          }),
        );
        const curriculum = explain
          ? await explainCurriculum(setup, seed, history, schedule, successes)
          : undefined;
        if (curriculum) log(`${method}: ${describeCurriculum(curriculum)}`);
        return {
          policy,
          realInteractions: 0,
          syntheticInteractions: history.at(-1)?.envSteps ?? 0,
          curve: curveOf(method, history),
          ...(curriculum && { curriculum }),
        };
      } finally {
        await own?.close();
      }
    };

  if (options.ablations) {
    await row('DreamGym GRPO (full)', dreamRl('grpo', 'DreamGym GRPO (full)', { explain: true }));
    if (options.curriculum)
      await row(
        '− curriculum',
        dreamRl('grpo', '− curriculum', { useCurriculum: false, explain: true }),
      );
    // Without retrieval the model is grounded in no real transition: no demonstrations, and
    // (for the LLM-free model, whose knowledge is the buffer's transitions) nothing learnt. Its
    // buffer stays empty too: written-back episodes would ground it in its own guesses.
    const empty = await ReplayBuffer.open({ encoder: new TransitionEncoder() });
    const ungrounded = await makeModel(setup, empty);
    // Nor does it branch: the buffer's real states are retrieval's ground too.
    await row(
      '− retrieval',
      dreamRl('grpo', '− retrieval', {
        synthetic: { k: 0 },
        frozen: true,
        experienceModel: () => ungrounded,
        branched: false,
      }),
    );
    await empty.close();
    if (options.branching?.share)
      await row('− branching', dreamRl('grpo', '− branching', { branched: false }));
    await row('− history', dreamRl('grpo', '− history', { synthetic: { history: false } }));
    // The buffer frozen at the offline data: no write-back, real demonstrations only, no refresh.
    await row('− co-evolution', dreamRl('grpo', '− co-evolution', { frozen: true }));
    const withoutReasoning = options.experienceModelWithoutReasoning;
    if (withoutReasoning) {
      await row(
        '− reasoning',
        dreamRl('grpo', '− reasoning', {
          experienceModel: (rowBuffer) => withoutReasoning(setup, rowBuffer),
        }),
      );
    }
  } else {
    await row('untrained policy', async () => ({
      policy: new ChoicePolicy({ seed, family: setup.name }),
      realInteractions: 0,
      syntheticInteractions: 0,
      curve: [],
    }));
    await row('BC (SFT on offline data)', async () => ({
      policy: await clonedPolicy(),
      realInteractions: 0,
      syntheticInteractions: 0,
      curve: [],
    }));
    await row(DPO_ROW, async () => {
      const policy = await clonedPolicy();
      const fit = await dpoFromOffline(policy, offline, {
        env: setup.name,
        seed,
        ...(options.dpoBeta !== undefined && { beta: options.dpoBeta }),
      });
      log(`${DPO_ROW}: ${describeDpoFit(fit)}`);
      return { policy, realInteractions: 0, syntheticInteractions: 0, curve: [] };
    });
    await row(`GRPO (real, B = ${options.realBudget}${from})`, realRl('grpo', options.realBudget));
    await row(`PPO (real, B = ${options.realBudget}${from})`, realRl('ppo', options.realBudget));
    const small = options.smallBudget ?? Math.floor(options.realBudget / 10);
    await row(`GRPO (real, small budget = ${small}${from})`, realRl('grpo', small));
    const dreamGrpo = await row(
      `DreamGym GRPO (synthetic only${from})`,
      dreamRl('grpo', 'DreamGym GRPO', { frozen: !options.coEvolve, explain: true }),
    );
    await row(
      `DreamGym PPO (synthetic only${from})`,
      dreamRl('ppo', 'DreamGym PPO', { frozen: !options.coEvolve }),
    );
    const synthetic = rows.at(-2) as SeedRow;
    await row(`DreamGym-S2R GRPO (synthetic${from}, then ${small} real)`, async () => {
      const out = await realRl('grpo', small, dreamGrpo)();
      const curve = [
        // S2R starts where DreamGym GRPO ended and continues on real steps.
        ...synthetic.curve.slice(-1).map((p) => ({ ...p, method: 'DreamGym-S2R' })),
        ...out.curve.map((p) => ({
          ...p,
          method: 'DreamGym-S2R',
          steps: p.steps + synthetic.syntheticInteractions,
        })),
      ];
      return { ...out, syntheticInteractions: synthetic.syntheticInteractions, curve };
    });
  }
  await buffer.close();
  const agreement = rankAgreement(
    rows.map((r) => ({
      policy: r.method,
      synthetic: outcomes(r.synthetic as Estimate),
      real: outcomes(r.success),
    })),
    { seed },
  );
  const onOffline = rankAgreement(
    rows.map((r) => ({
      policy: r.method,
      synthetic: outcomes(r.offlineTasks?.synthetic as Estimate),
      real: outcomes(r.offlineTasks?.real as Estimate),
    })),
    { seed },
  );
  const describe = (a: RankAgreement) =>
    `Kendall τ ${a.tau.toFixed(2)} [${a.low.toFixed(2)}, ${a.high.toFixed(2)}]`;
  log(
    `sim/real rank agreement of ${rows.length} rows: held-out tasks ${describe(agreement)}, offline tasks ${describe(onOffline)}`,
  );
  return {
    rows,
    offline,
    experienceModel: model.id,
    rankAgreement: { ...agreement, seed, offlineTasks: onOffline },
  };
}

/**
 * A DreamGym row's {@link CurriculumStats}: the informative share of its rollout groups, what its
 * curriculum (if any) selected, and a sample of its synthetic successes per task origin replayed
 * in the real env.
 */
async function explainCurriculum(
  setup: EnvSetup,
  seed: number,
  history: readonly IterationMetrics[],
  schedule: TaskSchedule | undefined,
  successes: readonly Trajectory[],
): Promise<CurriculumStats> {
  const rng = new Rng(seed).fork('replayed-successes');
  const replay = async (origin: 'seed' | 'generated') => {
    const realEnv = setup.makeReal();
    try {
      return await replayInReal({
        trajectories: rng.sample(
          successes.filter((t) => t.task.origin === origin),
          REPLAYED_SUCCESSES,
        ),
        realEnv,
      });
    } finally {
      await realEnv.close();
    }
  };
  return {
    informativeShare:
      history.reduce((s, m) => s + m.rollout.informativeGroups, 0) / Math.max(1, history.length),
    ...(schedule instanceof Curriculum && { selection: await schedule.report() }),
    replay: { seed: await replay('seed'), generated: await replay('generated') },
  };
}

/** A success rate's episodes as 0/1 outcomes (their order does not matter to a bootstrap). */
function outcomes(success: Estimate): number[] {
  const successes = Math.round(success.mean * success.n);
  return Array.from({ length: success.n }, (_, i) => (i < successes ? 1 : 0));
}

/** One line of {@link CurriculumStats} for the progress log. */
function describeCurriculum(stats: CurriculumStats): string {
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  const { seed, generated } = stats.replay;
  const played = stats.selection?.played;
  return [
    `informative groups ${pct(stats.informativeShare)}`,
    ...(played
      ? [
          `played ${played.seed.groups} seed groups (${pct(played.seed.informativeShare)} informative), ${played.generated.groups} generated (${pct(played.generated.informativeShare)})`,
        ]
      : []),
    `synthetic successes confirmed by replay: seed ${seed.confirmed}/${seed.syntheticSuccesses}, generated ${generated.confirmed}/${generated.syntheticSuccesses} (${generated.unreplayable} unreplayable)`,
  ].join('; ');
}

/** The LLM calls, tokens and money spent since `before` (all clients, by the global counters). */
function llmSince(before: LlmStatsSnapshot): DemoResult['llm'] {
  const now = globalLlmStats.snapshot();
  return {
    calls: now.calls - before.calls,
    promptTokens: now.promptTokens - before.promptTokens,
    completionTokens: now.completionTokens - before.completionTokens,
    costUsd: now.costUsd - before.costUsd,
  };
}
