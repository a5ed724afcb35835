import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { initTf } from '../core/tf.ts';
import type { Task, Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import { LlmTaskGenerator } from '../curriculum/generators/llm-generator.ts';
import { offlineMutators } from '../curriculum/generators/offline-mutators.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { readTrajectories, TrajectoryFileNotFoundError } from '../data/trajectory-file.ts';
import { globalLlmStats } from '../llm/stats.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { loadPolicy } from '../policy/load.ts';
import { hasExpert } from '../policy/registry.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { formatMean, formatRate } from '../report/stats.ts';
import { behaviourCloning } from '../rl/bc.ts';
import { type TaskSchedule, train } from '../rl/trainer.ts';
import { bufferBranchPoints } from './branching.ts';
import { type RunConfig, resolveRunEnv } from './config.ts';
import { describeDpoFit, dpoFromOffline } from './dpo-baseline.ts';
import { makeExperienceModel, makeLlmClient } from './experience-model.ts';
import {
  type EnvSetup,
  type Evaluation,
  envSetup,
  evaluateReal,
  offlineData,
  syntheticFactory,
} from './experiment.ts';

/** What a run measured: interactions, LLM use, wall time and the evaluations after each stage. */
export interface RunSummary {
  /** Real env steps: offline data, S2R training, and held-out evaluation. */
  realInteractions: { offline: number; s2r: number; evaluation: number };
  syntheticInteractions: number;
  /** LLM calls and tokens of the process (the CLI runs one pipeline per process). */
  llm: ReturnType<typeof globalLlmStats.snapshot>;
  /** Wall time per stage, seconds. */
  seconds: Record<string, number>;
  /** After synthetic training (after BC and DPO when `train.algo` is `dpo`). */
  afterSynthetic: Evaluation;
  afterS2r?: Evaluation;
}

/** Ways to change or watch a run from code. */
export interface RunHooks {
  /** A curriculum for the synthetic stage; default: reward variance with the offline mutators. */
  curriculum?: (setup: EnvSetup, config: RunConfig) => TaskSchedule | undefined;
  /** Called with each progress line. */
  onProgress?: (line: string) => void;
  /**
   * Where the replay buffer lives: a SQLite file or a `postgres://` URL that other runs,
   * collectors and servers share (the offline data goes in once; episodes stored already are
   * skipped). Default `<runDir>/buffer.db`.
   */
  buffer?: string;
}

/**
 * Holds the tasks of the last `n` offline episodes out of training, to choose the weights on in
 * the synthetic env (`train.keepBest`); the rest of the train tasks are trained on.
 */
function heldOutForSelection(
  tasks: readonly Task[],
  offline: readonly Trajectory[],
  n: number,
): { trainTasks: Task[]; validation: Task[] } {
  const distinct = [...new Map(offline.map((t) => [t.task.id, t.task])).values()];
  if (distinct.length <= n) {
    throw new ConfigError(
      `train.keepBest.validationTasks is ${n}, but the offline data has ${distinct.length} distinct tasks: hold out fewer, or collect more offline episodes.`,
    );
  }
  const validation = distinct.slice(-n);
  const held = new Set(validation.map((t) => t.id));
  return { trainTasks: tasks.filter((t) => !held.has(t.id)), validation };
}

/**
 * `dreamgym run`: offline real data → replay buffer → experience model → synthetic env →
 * (curriculum) → GRPO/PPO → held-out real evaluation → optional S2R in the real env within a
 * fixed real budget. With `train.algo: dpo`, the offline baseline instead: behaviour cloning on
 * the offline data, then DPO on its preference pairs, then the evaluation. The run folder gets the resolved config, versions, per-stage metrics and
 * checkpoints, the buffer (unless {@link RunHooks.buffer} puts it elsewhere), `summary.json` and
 * `report.md`.
 */
export async function runPipeline(
  config: RunConfig,
  runDir: string,
  hooks: RunHooks = {},
): Promise<RunSummary> {
  await initTf();
  const log = hooks.onProgress ?? (() => {});
  const seconds: Record<string, number> = {};
  const stage = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    log(`${name}…`);
    const started = performance.now();
    try {
      return await fn();
    } finally {
      seconds[name] = (performance.now() - started) / 1000;
    }
  };
  // What can be checked before the run starts is checked before the run folder gets anything:
  // a run that cannot start leaves no config.json, versions.json or empty folder behind.
  const env = await resolveRunEnv(config.env);
  const setup = envSetup(env, { testTasks: config.evaluation.episodes });
  if (config.offline.data && !existsSync(config.offline.data))
    throw new TrajectoryFileNotFoundError(config.offline.data);
  if (!config.offline.data && config.offline.policy === 'expert' && !hasExpert(env)) {
    throw new ConfigError(
      `env "${env}" has no scripted expert to collect the offline data: set offline.data to a trajectory file (dreamgym collect --policy random|llm|DIR, or dreamgym buffer import of transcripts, then buffer export), or offline.policy to random, llm or a saved policy's folder.`,
    );
  }
  const offlinePolicy = config.offline.data
    ? undefined
    : await loadPolicy(config.offline.policy, {
        env,
        epsilon: config.offline.epsilon,
        temperature: 1,
      });
  // In LLM mode one client serves the experience model and the curriculum's task generator.
  const llm =
    config.experienceModel.kind === 'llm' && config.experienceModel.llm
      ? await makeLlmClient(config.experienceModel.llm)
      : undefined;
  // A buffer elsewhere is opened before the folder too: one that cannot be (an unreachable
  // server, a file that is not SQLite) leaves no run folder behind.
  const shared =
    hooks.buffer === undefined ? undefined : await ReplayBuffer.open({ path: hooks.buffer });
  let offline: Trajectory[];
  try {
    await mkdir(runDir, { recursive: true });
    // An entry handed over in code is recorded by its name (its functions do not serialize).
    const recorded = { ...config, env: 'make' in Object(config.env) ? env : config.env };
    await writeFile(join(runDir, 'config.json'), `${JSON.stringify(recorded, null, 2)}\n`);
    await writeFile(join(runDir, 'versions.json'), `${JSON.stringify(versions(), null, 2)}\n`);
    offline = await stage('offline data', () =>
      config.offline.data
        ? readTrajectories(config.offline.data)
        : offlineData(setup, {
            episodes: config.offline.episodes,
            ...(offlinePolicy !== undefined && { policy: offlinePolicy }),
            seed: config.seed,
          }),
    );
  } catch (error) {
    await shared?.close();
    throw error;
  }
  const buffer = shared ?? (await ReplayBuffer.open({ path: join(runDir, 'buffer.db') }));
  let pool: SqliteTaskPool | undefined;
  try {
    await stage('replay buffer', () => buffer.add(offline));
    const policy = new ChoicePolicy({ seed: config.seed, family: setup.name });
    const { algo, beta, branching, start, keepBest, ...trainSettings } = config.train;
    const trainerConfig = {
      ...trainSettings,
      // A DPO run has no RL stage (config validation refuses its s2r).
      algo: algo === 'dpo' ? ('grpo' as const) : algo,
      evalEvery: config.evaluation.every,
      evalEpisodes: config.evaluation.episodes,
      maxEpisodeSteps: setup.maxEpisodeSteps,
      seed: config.seed,
    };
    let syntheticInteractions = 0;
    let schedule: TaskSchedule | undefined;
    if (algo === 'dpo') {
      await stage('behaviour cloning', async () => {
        const fit = behaviourCloning(policy, offline, { seed: config.seed });
        log(`behaviour cloning: ${fit.decisions} decisions, ${fit.epochs} epochs`);
      });
      await stage('DPO', async () => {
        const fit = await dpoFromOffline(policy, offline, {
          env,
          seed: config.seed,
          ...(beta !== undefined && { beta }),
        });
        log(`DPO: ${describeDpoFit(fit)}`);
      });
    } else {
      if (start === 'bc') {
        await stage('behaviour cloning', async () => {
          const fit = behaviourCloning(policy, offline, { seed: config.seed });
          log(`behaviour cloning: ${fit.decisions} decisions, ${fit.epochs} epochs`);
        });
      }
      const model = await stage('experience model', () =>
        makeExperienceModel(config.experienceModel, env, buffer, llm),
      );
      const makeSynthetic = syntheticFactory(setup, buffer, model, config.experienceModel);
      const { trainTasks, validation } = keepBest
        ? heldOutForSelection(setup.trainTasks, offline, keepBest.validationTasks)
        : { trainTasks: setup.trainTasks, validation: [] };
      // Mode `off` still goes through the curriculum (uniform over the seed tasks, nothing
      // generated) so its statistics are recorded the same way for the ablation.
      pool = SqliteTaskPool.open({ path: join(runDir, 'tasks.db') });
      schedule =
        hooks.curriculum?.(setup, config) ??
        new Curriculum(
          {
            pool,
            seedTasks: trainTasks,
            generator: llm ? new LlmTaskGenerator({ llm }) : offlineMutators,
          },
          {
            mode: config.curriculum.mode,
            generatedShare: config.curriculum.generatedShare,
            seed: config.seed,
          },
        );
      const branchSource =
        branching.share > 0
          ? await bufferBranchPoints(buffer, setup.name, policy, branching.pick)
          : undefined;
      const synthetic = await stage('synthetic training', () =>
        train(
          {
            policy,
            makeEnv: makeSynthetic,
            trainTasks,
            // Model-based selection evaluates in the synthetic env, on offline tasks held out.
            ...(keepBest
              ? { makeEvalEnv: makeSynthetic, evalTasks: validation }
              : { makeEvalEnv: setup.makeReal, evalTasks: setup.testTasks }),
            outDir: join(runDir, 'synthetic'),
            provenance: 'synthetic',
            onIteration: async (m) => {
              log(
                `synthetic iter ${m.iteration + 1}: rollout reward ${m.rollout.meanReward.toFixed(3)}${m.eval ? `, held-out success ${(100 * m.eval.successRate).toFixed(1)}%` : ''}`,
              );
              // Another process (a collector, a served real env) may have added real episodes.
              const learnt = (await model.refresh?.()) ?? 0;
              // Their states are ground to branch from too.
              await branchSource?.refresh();
              if (learnt > 0) log(`experience model learnt ${learnt} new real episodes`);
            },
            ...(schedule && { schedule }),
            ...(branchSource && { branchPoints: branchSource.branchPoints }),
          },
          {
            ...trainerConfig,
            branching: { share: branching.share, horizon: branching.horizon },
            ...(keepBest && { keepBest: true, evalEpisodes: validation.length }),
          },
        ),
      );
      syntheticInteractions = synthetic.at(-1)?.envSteps ?? 0;
    }
    const evaluations = config.evaluation.episodes;
    const afterSynthetic = await stage('evaluation', () =>
      evaluateReal(policy, setup, { episodes: evaluations, seed: config.seed + 1 }),
    );
    const summary: RunSummary = {
      realInteractions: {
        offline: offline.reduce((s, t) => s + t.steps.length, 0),
        s2r: 0,
        evaluation: Math.round(afterSynthetic.meanSteps * afterSynthetic.success.n),
      },
      syntheticInteractions,
      llm: globalLlmStats.snapshot(),
      seconds,
      afterSynthetic,
    };
    if (config.s2r) {
      const s2r = await stage('S2R', () =>
        train(
          {
            policy,
            makeEnv: setup.makeReal,
            trainTasks: setup.trainTasks,
            makeEvalEnv: setup.makeReal,
            evalTasks: setup.testTasks,
            outDir: join(runDir, 's2r'),
            onIteration: (m) => log(`S2R iter ${m.iteration + 1}: ${m.envSteps} real steps`),
          },
          { ...trainerConfig, iterations: 10_000, maxEnvSteps: config.s2r?.realBudget },
        ),
      );
      summary.realInteractions.s2r = s2r.at(-1)?.envSteps ?? 0;
      summary.afterS2r = await stage('evaluation after S2R', () =>
        evaluateReal(policy, setup, { episodes: evaluations, seed: config.seed + 1 }),
      );
      summary.realInteractions.evaluation += Math.round(
        summary.afterS2r.meanSteps * summary.afterS2r.success.n,
      );
    }
    if (schedule instanceof Curriculum) {
      await writeFile(
        join(runDir, 'curriculum.json'),
        `${JSON.stringify({ stats: await schedule.stats(), warnings: schedule.warnings }, null, 2)}\n`,
      );
    }
    await policy.save(join(runDir, 'policy'));
    summary.llm = globalLlmStats.snapshot();
    await writeFile(join(runDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    await writeFile(join(runDir, 'report.md'), runReport(env, config, summary));
    return summary;
  } finally {
    await pool?.close();
    await buffer.close();
  }
}

function runReport(env: string, config: RunConfig, s: RunSummary): string {
  const row = (name: string, e: Evaluation) =>
    `| ${name} | ${formatRate(e.success)} | ${formatMean(e.reward)} | ${e.meanSteps.toFixed(1)} |`;
  return `# dreamgym run: ${env}

| policy | held-out success [95% CI] | mean reward | mean steps |
|---|---|---|---|
${row(config.train.algo === 'dpo' ? 'after BC and DPO on the offline data' : 'after synthetic training', s.afterSynthetic)}
${s.afterS2r ? row(`after S2R (${s.realInteractions.s2r} real steps)`, s.afterS2r) : ''}

- Real interactions: ${s.realInteractions.offline} offline, ${s.realInteractions.s2r} in S2R training, ${s.realInteractions.evaluation} in evaluation.
- Synthetic interactions: ${s.syntheticInteractions}. Experience model: ${config.experienceModel.kind}.
- LLM: ${s.llm.calls} calls, ${s.llm.promptTokens} prompt and ${s.llm.completionTokens} completion tokens, $${s.llm.costUsd.toFixed(2)} at the configured token prices.
- Wall time: ${Object.entries(s.seconds)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ')}.
`;
}

/** Versions of node and of every dependency actually installed. */
function versions(): Record<string, string> {
  const root = join(import.meta.dirname, '..', '..');
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
  };
  const out: Record<string, string> = { node: process.version, dreamgym: own.version };
  for (const name of Object.keys(own.dependencies)) {
    try {
      out[name] = (
        JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}
