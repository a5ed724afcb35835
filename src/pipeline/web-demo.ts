import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Rng } from '../core/rng.ts';
import { initTf } from '../core/tf.ts';
import { finalReward, type Task, type Trajectory } from '../core/types.ts';
import type { CurriculumReport } from '../curriculum/curriculum-report.ts';
import type { CurriculumMode } from '../curriculum/selection.ts';
import { type WebTaskKind, webTaskKind } from '../envs/web/webarena/task-kind.ts';
import type { ExperienceChoice } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { makePolicy } from '../policy/registry.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { type Estimate, formatRate, meanInterval, wilson } from '../report/stats.ts';
import { type BehaviourCloningOptions, behaviourCloning } from '../rl/bc.ts';
import { rollout } from '../rl/rollout.ts';
import { type TrainerConfig, type TrainerPolicy, train } from '../rl/trainer.ts';
import type { BranchingOptions } from './branching.ts';
import { DPO_ROW, describeDpoFit, dpoFromOffline } from './dpo-baseline.ts';
import type { DreamTrainingResult } from './dream-training.ts';
import { trainDreamInWorker } from './dream-training-thread.ts';
import type { EnvSetup } from './experiment.ts';
import { type ReplayReport, replayInReal } from './fidelity.ts';
import { webSetup } from './web-setup.ts';

/**
 * The paper's non-RL-ready regime on our web apps (WebArena-Lite's role in the paper): the real
 * browser env is used only for offline demonstrations and the final evaluation; DreamGym trains
 * in the synthetic env learnt from those demonstrations. Rows per site: untrained, BC on the
 * offline expert demonstrations (the paper's SFT baseline), DPO from BC on expert-labelled pairs
 * of the offline states (the paper's DPO baseline), DreamGym GRPO and PPO (synthetic
 * only), and — for reference only — GRPO in the real browser env with the real steps DreamGym
 * GRPO's training time would have bought ("real RL, if it were possible").
 */
export interface WebDemoOptions {
  /** Env names, e.g. `web:forum`, `web:store`. */
  sites: string[];
  seed: number;
  /** Offline real episodes of the noisy expert per site. */
  offlineEpisodes: number;
  epsilon: number;
  syntheticIterations: number;
  trainer: Partial<TrainerConfig>;
  /** Held-out test tasks per evaluation. */
  evalEpisodes: number;
  /** Browser episodes in flight at once (offline collection, evaluation, real RL). */
  parallel: number;
  /** Step limit of training and evaluation episodes (WebArena: 30). */
  maxEpisodeSteps: number;
  outDir: string;
  /** Behaviour cloning's settings (every trained row starts from BC). */
  bc?: Pick<BehaviourCloningOptions, 'epochs' | 'learningRate'>;
  /** The DPO row's β. Default `CHOICE_POLICY_DPO_BETA`. */
  dpoBeta?: number;
  /** Skip the real-RL reference row (it is the slowest). */
  skipRealRl?: boolean;
  /**
   * The tasks every RL row trains on: `offline` (default), the tasks of the offline
   * demonstrations — DreamGym's seed tasks, whose pages and outcomes the buffer holds; `all`,
   * every train task (the synthetic env then composes pages and judges answers it has never seen).
   */
  trainOn?: 'offline' | 'all';
  /** Sampling temperature of every evaluation; default 0 (greedy, as the webshop table). */
  evalTemperature?: number;
  /**
   * The DreamGym rows' curriculum: `off` (default: the RL tasks uniformly, as the web table was
   * measured), `variance` (DreamGym's, with variations of the RL tasks built from the buffer's
   * real pages; one seed on the store: 21.7% against 26.7% without, see
   * docs/experiments/curriculum.md), or `random`.
   */
  curriculum?: CurriculumMode;
  /**
   * Add a DreamGym GRPO row without the curriculum, and replay up to `replays` synthetic successes
   * of each task origin of both GRPO rows in the real browser (a generated task on the real task
   * of the same instruction, when the site has one): the curriculum's effect, explained.
   */
  curriculumAblation?: { replays: number };
  /**
   * Which LLM-free experience model the DreamGym rows train in (see `llmFreeModel`); default
   * `auto`, the hand-written web model.
   */
  experience?: ExperienceChoice;
  /** The DreamGym rows' branched rollouts (see `TrainerConfig.branching`). Default: none. */
  branching?: BranchingOptions;
  onProgress?: (line: string) => void;
}

/** The row the curriculum ablation adds: DreamGym GRPO trained on the seed tasks uniformly. */
export const UNIFORM_GRPO_ROW = 'DreamGym GRPO − curriculum';

/** One held-out episode's outcome: its task, the task's kind (WebArena's), the evaluator's reward. */
export interface TaskOutcome {
  taskId: string;
  /** WebArena's kind of the task (see `webTaskKind`); `other` for a task without a WebArena config. */
  kind: WebTaskKind | 'other';
  reward: number;
}

export interface WebDemoRow {
  site: string;
  method: string;
  success: Estimate;
  reward: Estimate;
  /** Every held-out episode, in task order (the same tasks for every row of a site). */
  outcomes: TaskOutcome[];
  realInteractions: number;
  syntheticInteractions: number;
  seconds: number;
  /**
   * DreamGym rows under `curriculumAblation`: what they trained on and (GRPO rows) how true
   * their synthetic successes were.
   */
  curriculum?: WebCurriculumStats;
}

/** What a DreamGym row trained on and how many of its synthetic successes hold for real. */
export interface WebCurriculumStats {
  /** Mean over iterations of the share of rollout groups whose rewards varied. */
  informativeShare: number;
  /** What the curriculum selected (template mix by `intent_template_id`); absent without one. */
  selection?: CurriculumReport;
  /**
   * Sampled synthetic successes replayed in the real browser, of seed tasks and of generated
   * ones; a generated task whose instruction is no real task of the site is unreplayable.
   */
  replay: { seed: ReplayReport; generated: ReplayReport };
}

export interface WebDemoResult {
  rows: WebDemoRow[];
  sites: Array<{
    site: string;
    offlineTransitions: number;
    offlineSuccessRate: number;
    /** Distinct tasks the RL rows trained on (see `trainOn`). */
    rlTasks: number;
    /** Mean wall time of one real browser step during offline collection, ms (at `parallel`). */
    realStepMs: number;
    /** Mean wall time of one synthetic step during DreamGym GRPO training, ms. */
    syntheticStepMs: number;
  }>;
  options: Omit<WebDemoOptions, 'onProgress'>;
}

/**
 * Episodes of `policy` on the first `episodes` held-out tasks in the real browser env, `parallel`
 * at once, greedy or sampled at `temperature` (each episode seeded by its place). Success is
 * WebArena's: the evaluator's reward of the final state, whether the agent stopped or hit the
 * step limit.
 */
export async function evaluateWeb(
  policy: TrainerPolicy,
  setup: EnvSetup,
  {
    episodes,
    seed,
    parallel,
    temperature = 0,
  }: { episodes: number; seed: number; parallel: number; temperature?: number },
): Promise<{ success: Estimate; reward: Estimate; outcomes: TaskOutcome[] }> {
  const previous = policy.temperature;
  policy.temperature = temperature;
  const results = await rollout({
    makeEnv: setup.makeReal,
    policy,
    tasks: setup.testTasks.slice(0, episodes),
    seed,
    provenance: 'real-online',
    concurrency: parallel,
  }).finally(() => {
    policy.temperature = previous;
  });
  const trajectories = results.map((e) => e.trajectory);
  return {
    success: wilson(trajectories.filter((t) => finalReward(t) >= 1).length, trajectories.length),
    reward: meanInterval(trajectories.map(finalReward)),
    outcomes: trajectories.map((t) => ({
      taskId: t.task.id,
      kind: webTaskKind(t.task) ?? 'other',
      reward: finalReward(t),
    })),
  };
}

/**
 * Offline demonstrations in the real browser: the site's scripted expert with mistake rate ε on
 * the first `episodes` train tasks, `parallel` at once; and the mean wall time of a real step.
 */
export async function collectWebDemos(
  setup: EnvSetup,
  {
    episodes,
    epsilon,
    seed,
    parallel,
  }: { episodes: number; epsilon: number; seed: number; parallel: number },
): Promise<{ offline: Trajectory[]; realStepMs: number }> {
  const started = performance.now();
  const offline = (
    await rollout({
      makeEnv: setup.makeReal,
      policy: makePolicy('expert', { env: setup.name, epsilon }),
      tasks: setup.trainTasks.slice(0, episodes),
      seed,
      provenance: 'real-offline',
      concurrency: parallel,
    })
  ).map((e) => e.trajectory);
  return { offline, realStepMs: (performance.now() - started) / Math.max(1, steps(offline)) };
}

/**
 * A DreamGym row's {@link WebCurriculumStats}: up to `replays` of its synthetic successes per task
 * origin (sampled) replayed in the real browser. A generated task is replayed on the site's real
 * task of the same instruction (train or test) — measurement only: the curriculum never sees it.
 */
async function explainWebRun(
  run: DreamTrainingResult,
  setup: EnvSetup,
  replays: number,
  seed: number,
): Promise<WebCurriculumStats> {
  const real = new Map<string, Task>(
    [...setup.trainTasks, ...setup.testTasks].map((t) => [t.instruction, t]),
  );
  const rng = new Rng(seed).fork('replayed-successes');
  const replay = async (origin: Task['origin']) => {
    const sampled = rng.sample(
      (run.successes ?? []).filter((t) => t.task.origin === origin),
      replays,
    );
    const onReal = sampled.flatMap((t) => {
      const task = origin === 'seed' ? t.task : real.get(t.task.instruction);
      return task ? [{ ...t, task }] : [];
    });
    const realEnv = setup.makeReal();
    try {
      const report = await replayInReal({ trajectories: onReal, realEnv });
      return { ...report, unreplayable: report.unreplayable + sampled.length - onReal.length };
    } finally {
      await realEnv.close();
    }
  };
  return {
    informativeShare: run.informativeShare,
    ...(run.selection && { selection: run.selection }),
    replay: { seed: await replay('seed'), generated: await replay('generated') },
  };
}

const steps = (trajectories: readonly Trajectory[]) =>
  trajectories.reduce((s, t) => s + t.steps.length, 0);

/** Runs the web table for every site; writes `results.json` to `outDir` (`writeWebDemoReport` writes the report). */
export async function runWebDemo(options: WebDemoOptions): Promise<WebDemoResult> {
  await initTf();
  const log = options.onProgress ?? (() => {});
  await mkdir(options.outDir, { recursive: true });
  const { onProgress: _, ...recorded } = options;
  const result: WebDemoResult = { rows: [], sites: [], options: recorded };
  for (const site of options.sites) {
    const setup = webSetup(site, options.evalEpisodes, options.maxEpisodeSteps);
    const makeReal = setup.makeReal;
    log(
      `${site}: collecting ${options.offlineEpisodes} offline expert episodes (ε = ${options.epsilon})`,
    );
    const { offline, realStepMs } = await collectWebDemos(setup, {
      episodes: options.offlineEpisodes,
      epsilon: options.epsilon,
      seed: options.seed,
      parallel: options.parallel,
    });
    const name = site.replace(':', '-');
    const bufferPath = join(options.outDir, `${name}.db`);
    // The DreamGym rows' threads read the demonstrations from this file.
    const buffer = await ReplayBuffer.open({ path: bufferPath });
    await buffer.add(offline);
    await buffer.close();
    const offlineSuccessRate = offline.filter((t) => finalReward(t) >= 1).length / offline.length;
    const offlineTasks = new Set(offline.map((t) => t.task.id));
    const rlTasks =
      (options.trainOn ?? 'offline') === 'offline'
        ? setup.trainTasks.filter((t) => offlineTasks.has(t.id))
        : setup.trainTasks;
    log(
      `${site}: ${steps(offline)} offline transitions, ${(100 * offlineSuccessRate).toFixed(0)}% successful, ${realStepMs.toFixed(0)} ms per real step`,
    );

    const trainer = (overrides: Partial<TrainerConfig>): Partial<TrainerConfig> => ({
      evalEvery: 0,
      evalEpisodes: 0,
      maxEpisodeSteps: options.maxEpisodeSteps,
      seed: options.seed,
      ...options.trainer,
      ...overrides,
    });
    const row = async (
      method: string,
      body: () => Promise<{
        policy: ChoicePolicy;
        real: number;
        synthetic: number;
        /** Training time when it is not the body's own (trained beforehand, on another thread). */
        seconds?: number;
        curriculum?: WebCurriculumStats;
      }>,
    ) => {
      log(`${site} ${method}: training`);
      const started = performance.now();
      const { policy, real, synthetic, seconds: trained, curriculum } = await body();
      const seconds = trained ?? (performance.now() - started) / 1000;
      const { success, reward, outcomes } = await evaluateWeb(policy, setup, {
        episodes: options.evalEpisodes,
        seed: options.seed + 1,
        parallel: options.parallel,
        temperature: options.evalTemperature ?? 0,
      });
      result.rows.push({
        site,
        method,
        success,
        reward,
        outcomes,
        realInteractions: real,
        syntheticInteractions: synthetic,
        seconds,
        ...(curriculum && { curriculum }),
      });
      log(
        `${site} ${method}: held-out success ${formatRate(success)} (${seconds.toFixed(0)} s training)`,
      );
      return { policy, seconds, synthetic };
    };

    await row('untrained policy', async () => ({
      policy: new ChoicePolicy({ seed: options.seed }),
      real: 0,
      synthetic: 0,
    }));
    /** The policy cloned from the offline demonstrations: the BC row; every RL row starts from a copy. */
    let bc: ChoicePolicy | undefined;
    await row('BC (SFT on offline demos)', async () => {
      bc = new ChoicePolicy({ seed: options.seed });
      // Fixed epochs, as the README's web tables were measured (no validation split).
      behaviourCloning(bc, offline, { seed: options.seed, validationShare: 0, ...options.bc });
      return { policy: bc, real: 0, synthetic: 0 };
    });
    const cloned = () => (bc as ChoicePolicy).copy();
    await row(DPO_ROW, async () => {
      const policy = cloned();
      const fit = await dpoFromOffline(policy, offline, {
        env: site,
        seed: options.seed,
        ...(options.dpoBeta !== undefined && { beta: options.dpoBeta }),
      });
      log(`${site} ${DPO_ROW}: ${describeDpoFit(fit)}`);
      return { policy, real: 0, synthetic: 0 };
    });
    // DreamGym starts from the SFT policy, as the paper's agents start from an instruct model.
    // Its GRPO and PPO rows train at once, each on a thread (synthetic training is one core's
    // work), from the same saved BC policy over the same buffer file.
    const bcDir = join(options.outDir, `${name}-bc`);
    await (bc as ChoicePolicy).save(bcDir);
    const dreamDir = (algo: 'grpo' | 'ppo') => join(options.outDir, `${name}-dreamgym-${algo}`);
    const mode = options.curriculum ?? 'off';
    const ablation = options.curriculumAblation;
    const dreamJob = (algo: 'grpo' | 'ppo', curriculum = mode, dir = dreamDir(algo)) =>
      trainDreamInWorker({
        site,
        bufferPath,
        taskIds: rlTasks.map((t) => t.id),
        startPolicy: bcDir,
        outPolicy: dir,
        trainer: trainer({ algo, iterations: options.syntheticIterations }),
        maxEpisodeSteps: options.maxEpisodeSteps,
        ...(curriculum !== 'off' && { curriculum: { mode: curriculum } }),
        ...(ablation && algo === 'grpo' && { returnSuccesses: true }),
        ...(options.experience && { experience: options.experience }),
        ...(options.branching && { branching: options.branching }),
      });
    log(
      `${site}: DreamGym GRPO and PPO training in the synthetic env (curriculum ${mode}), on two threads`,
    );
    const [grpoRun, ppoRun] = await Promise.all([dreamJob('grpo'), dreamJob('ppo')]);
    const syntheticStepMs = (1000 * grpoRun.seconds) / Math.max(1, grpoRun.syntheticSteps);
    const trained = (dir: string, run: DreamTrainingResult) => async () => ({
      policy: await ChoicePolicy.load(dir),
      real: 0,
      synthetic: run.syntheticSteps,
      seconds: run.seconds,
      ...(ablation && {
        curriculum: await explainWebRun(run, setup, ablation.replays, options.seed),
      }),
    });
    const grpo = await row(
      'DreamGym GRPO (BC init, synthetic only)',
      trained(dreamDir('grpo'), grpoRun),
    );
    await row('DreamGym PPO (BC init, synthetic only)', trained(dreamDir('ppo'), ppoRun));
    if (ablation) {
      const dir = join(options.outDir, `${name}-dreamgym-grpo-uniform`);
      log(`${site}: DreamGym GRPO without the curriculum (the ablation)`);
      const uniform = await dreamJob('grpo', 'off', dir);
      await row(UNIFORM_GRPO_ROW, trained(dir, uniform));
    }
    if (!options.skipRealRl) {
      // The real steps DreamGym GRPO's training time buys in the browser (at the same parallelism).
      // The trainer fits each iteration's tasks to the budget; at least one task's group of
      // episodes, or it would not start one.
      const oneGroup = (options.trainer.groupSize ?? 8) * options.maxEpisodeSteps;
      const sameTime = Math.round((grpo.seconds * 1000) / realStepMs);
      const budget = Math.max(sameTime, oneGroup);
      const why =
        budget === sameTime ? 'same wall time' : "one task's group, over the same wall time";
      await row(
        `real RL, if it were possible (GRPO, BC init, ${budget} real steps = ${why})`,
        async () => {
          const policy = cloned();
          const history = await train(
            { policy, makeEnv: makeReal, trainTasks: rlTasks },
            trainer({
              algo: 'grpo',
              iterations: 10_000,
              maxEnvSteps: budget,
              concurrency: options.parallel,
            }),
          );
          return { policy, real: history.at(-1)?.envSteps ?? 0, synthetic: 0 };
        },
      );
    }
    result.sites.push({
      site,
      offlineTransitions: steps(offline),
      offlineSuccessRate,
      rlTasks: rlTasks.length,
      realStepMs,
      syntheticStepMs,
    });
  }
  await writeFile(join(options.outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
