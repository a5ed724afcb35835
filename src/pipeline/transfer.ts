import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initTf } from '../core/tf.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import { type Estimate, formatRate } from '../report/stats.ts';
import { type TrainerConfig, train } from '../rl/trainer.ts';
import { envSetup, evaluateReal, offlineData, syntheticFactory } from './experiment.ts';
import { collectWebDemos, evaluateWeb } from './web-demo.ts';
import { webSetup } from './web-setup.ts';

/**
 * Cross-domain transfer (the paper's Fig. 3 middle): a policy trained with DreamGym on one env (the
 * text shop, `webshop`) evaluated zero-shot on a web app (`web:store`, in the real browser) and
 * after a short DreamGym fine-tune there, against a policy trained on the web app from scratch with
 * the same synthetic budget. The web app's real env is used only for the offline demonstrations
 * its synthetic env is learnt from and for the final evaluation.
 */
export interface TransferOptions {
  /** The env the policy is first trained on (synthetic only), e.g. `webshop`. */
  source: string;
  /** The web app it is moved to, e.g. `web:store`. */
  target: string;
  seed: number;
  /** Offline expert episodes (ε-noisy) that the source's synthetic env is learnt from. */
  sourceOfflineEpisodes: number;
  /** DreamGym GRPO iterations on the source. */
  sourceIterations: number;
  /** Held-out source tasks the source policy is scored on (in the source's real env). */
  sourceEvalEpisodes: number;
  /** Offline expert episodes in the target's real browser env (its synthetic env's data). */
  targetOfflineEpisodes: number;
  /** Synthetic target steps of the fine-tune, and of training from scratch. */
  targetSteps: number;
  /** Held-out target tasks per evaluation. */
  evalEpisodes: number;
  /** Browser episodes in flight at once. */
  parallel: number;
  /** Step limit of target episodes. */
  maxEpisodeSteps: number;
  epsilon: number;
  /** Trainer settings of the target runs. */
  trainer: Partial<TrainerConfig>;
  /** Trainer settings of the source run (default the trainer's: 16 tasks × 8 episodes). */
  sourceTrainer?: Partial<TrainerConfig>;
  outDir: string;
  onProgress?: (line: string) => void;
}

export interface TransferRow {
  method: string;
  /** Held-out success on the target, real browser. */
  success: Estimate;
  reward: Estimate;
  /** Synthetic steps on the target. */
  targetSyntheticSteps: number;
  seconds: number;
}

export interface TransferResult {
  rows: TransferRow[];
  /** The source policy on the source's own held-out tasks. */
  source: { env: string; success: Estimate; syntheticSteps: number; seconds: number };
  target: { env: string; offlineTransitions: number; offlineSuccessRate: number };
  options: Omit<TransferOptions, 'onProgress'>;
}

/** Runs the transfer experiment; writes `results.json` and `report.md` to `outDir`. */
export async function runTransfer(options: TransferOptions): Promise<TransferResult> {
  await initTf();
  const log = options.onProgress ?? (() => {});
  await mkdir(options.outDir, { recursive: true });
  const { seed } = options;

  // 1. The source policy: DreamGym GRPO in the source's synthetic env, from random weights.
  const sourceStarted = performance.now();
  const source = envSetup(options.source, { testTasks: options.sourceEvalEpisodes });
  log(`${options.source}: collecting ${options.sourceOfflineEpisodes} offline expert episodes`);
  const sourceOffline = await offlineData(source, {
    episodes: options.sourceOfflineEpisodes,
    epsilon: options.epsilon,
    seed,
  });
  const sourceBuffer = await ReplayBuffer.open({ encoder: new TransitionEncoder() });
  await sourceBuffer.add(sourceOffline);
  const sourcePolicy = new ChoicePolicy({ seed });
  log(`${options.source}: DreamGym GRPO, ${options.sourceIterations} synthetic iterations`);
  const sourceHistory = await train(
    {
      policy: sourcePolicy,
      makeEnv: syntheticFactory(
        source,
        sourceBuffer,
        await llmFreeModel(source.name, sourceBuffer),
      ),
      trainTasks: source.trainTasks,
      provenance: 'synthetic',
    },
    {
      ...options.sourceTrainer,
      algo: 'grpo',
      iterations: options.sourceIterations,
      evalEvery: 0,
      seed,
    },
  );
  await sourceBuffer.close();
  const sourceEval = await evaluateReal(sourcePolicy, source, {
    episodes: options.sourceEvalEpisodes,
    seed: seed + 1,
  });
  const sourceSeconds = (performance.now() - sourceStarted) / 1000;
  log(
    `${options.source}: source policy held-out success ${formatRate(sourceEval.success)} (${sourceSeconds.toFixed(0)} s)`,
  );

  // 2. The target's synthetic env, learnt from offline demonstrations in its real browser env.
  const target = webSetup(options.target, options.evalEpisodes, options.maxEpisodeSteps);
  log(`${options.target}: collecting ${options.targetOfflineEpisodes} offline expert episodes`);
  const { offline } = await collectWebDemos(target, {
    episodes: options.targetOfflineEpisodes,
    epsilon: options.epsilon,
    seed,
    parallel: options.parallel,
  });
  const buffer = await ReplayBuffer.open({
    path: join(options.outDir, `${options.target.replace(':', '-')}.db`),
    encoder: new TransitionEncoder(),
  });
  await buffer.add(offline);
  const model = await llmFreeModel(options.target, buffer);

  const rows: TransferRow[] = [];
  const row = async (
    method: string,
    body: () => Promise<{ policy: ChoicePolicy; steps: number }>,
  ) => {
    log(`${options.target} ${method}: training`);
    const started = performance.now();
    const { policy, steps } = await body();
    const seconds = (performance.now() - started) / 1000;
    const { success, reward } = await evaluateWeb(policy, target, {
      episodes: options.evalEpisodes,
      seed: seed + 1,
      parallel: options.parallel,
      temperature: 1,
    });
    rows.push({ method, success, reward, targetSyntheticSteps: steps, seconds });
    log(`${options.target} ${method}: held-out success ${formatRate(success)}`);
  };
  /** DreamGym GRPO on the target's synthetic env until the step budget is spent. */
  const dream = async (policy: ChoicePolicy) => {
    const history = await train(
      {
        policy,
        makeEnv: syntheticFactory(target, buffer, model),
        trainTasks: target.trainTasks,
        provenance: 'synthetic',
      },
      {
        evalEvery: 0,
        evalEpisodes: 0,
        seed,
        ...options.trainer,
        algo: 'grpo',
        iterations: 10_000,
        maxEnvSteps: options.targetSteps,
        maxEpisodeSteps: options.maxEpisodeSteps,
      },
    );
    return { policy, steps: history.at(-1)?.envSteps ?? 0 };
  };
  const name = options.source;
  await row('untrained (random weights)', async () => ({
    policy: new ChoicePolicy({ seed }),
    steps: 0,
  }));
  await row(`${name} policy, zero-shot`, async () => ({ policy: sourcePolicy.copy(), steps: 0 }));
  await row(`${name} policy + DreamGym GRPO fine-tune on ${options.target}`, () =>
    dream(sourcePolicy.copy()),
  );
  await row(`from scratch: DreamGym GRPO on ${options.target}`, () =>
    dream(new ChoicePolicy({ seed })),
  );
  await buffer.close();

  const { onProgress: _, ...recorded } = options;
  const result: TransferResult = {
    rows,
    source: {
      env: options.source,
      success: sourceEval.success,
      syntheticSteps: sourceHistory.at(-1)?.envSteps ?? 0,
      seconds: sourceSeconds,
    },
    target: {
      env: options.target,
      offlineTransitions: offline.reduce((s, t) => s + t.steps.length, 0),
      offlineSuccessRate:
        offline.filter((t) => (t.steps.at(-1)?.reward ?? 0) >= 1).length / offline.length,
    },
    options: recorded,
  };
  await writeFile(join(options.outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(join(options.outDir, 'report.md'), transferReport(result));
  return result;
}

/** The transfer table in markdown, with the source policy's own score. */
export function transferReport(result: TransferResult): string {
  const { source, target } = result;
  return `${[
    `| method | ${target.env} held-out success [95% CI] | mean reward | synthetic ${target.env} steps | training time |`,
    '|---|---|---|---|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.method} | ${formatRate(r.success)} | ${r.reward.mean.toFixed(3)} | ${r.targetSyntheticSteps.toLocaleString('en-US')} | ${r.seconds.toFixed(0)} s |`,
    ),
    '',
    `Source policy: DreamGym GRPO on ${source.env} (${source.syntheticSteps.toLocaleString('en-US')} synthetic steps, ${source.seconds.toFixed(0)} s), ${formatRate(source.success)} on ${source.env}'s held-out tasks. ${target.env}'s synthetic env was learnt from ${target.offlineTransitions} real transitions of offline demonstrations (${(100 * target.offlineSuccessRate).toFixed(0)}% of episodes successful).`,
  ].join('\n')}\n`;
}
