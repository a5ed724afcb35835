import { isSuccess, type Task, type Trajectory } from '../../core/types.ts';
import { type ExperienceModel, ExperienceModelError } from '../../experience/experience-model.ts';
import type { LlmClient } from '../../llm/client.ts';
import { LlmError } from '../../llm/errors.ts';
import type { Policy } from '../../policy/policy.ts';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { TransitionEncoder } from '../../replay/transition-encoder.ts';
import { type Estimate, meanInterval } from '../../report/stats.ts';
import { collect } from '../../rl/collect.ts';
import { type EnvSetup, type SyntheticOptions, syntheticFactory } from '../experiment.ts';
import { CRITERIA, type Criterion, type JudgeAnswer, judgeGroup } from './judge.ts';
import { lensFor } from './lenses.ts';
import { entityVocabulary, groupByTask, type QualityProxies, qualityProxies } from './proxies.ts';

/** What `runQuality` compares and how much of it. */
export interface QualityOptions {
  setup: EnvSetup;
  /** Real episodes that fill the buffer (the experience model's only knowledge of the env). */
  offline: readonly Trajectory[];
  /** Held-out tasks, none of them in `offline`; each is played `groupSize` times per row. */
  tasks: readonly Task[];
  /** Episodes per task (a GRPO group). */
  groupSize: number;
  /** The fixed policy every row is played with. */
  policy: Policy;
  /** The full experience model over a buffer (called again with an empty one for − retrieval). */
  model: (buffer: ReplayBuffer) => ExperienceModel | Promise<ExperienceModel>;
  /**
   * The same model without reasoning (the LLM model's − reasoning ablation), a row of its own;
   * absent for models that do not reason (the LLM-free ones), and the report says so.
   */
  withoutReasoning?: (buffer: ReplayBuffer) => ExperienceModel | Promise<ExperienceModel>;
  /** Demonstrations per synthetic step. */
  k: number;
  seed: number;
  /** An LLM judge's settings; no judge when absent. */
  judge?: QualityJudgeOptions;
  /** Called with a line of progress at each row's start. */
  onProgress?: (line: string) => void;
}

/** The LLM judge of `runQuality`. */
export interface QualityJudgeOptions {
  llm: LlmClient;
  /** Task groups judged per row (the first ones). Default 10. */
  groups?: number;
  /** Real transitions shown for reference. Default 3. */
  references?: number;
}

/** The judge's mean score per criterion over the judged groups, with 95% intervals. */
export interface JudgeSummary {
  scores: Record<Criterion, Estimate>;
  /** Groups the judge could not score (its answer failed the schema twice, the server failed). */
  failures: number;
  /** The first group's reasons, as an example of what the judge saw. */
  example?: JudgeAnswer;
}

/** One compared source of experience. */
export interface QualityRow {
  /** `real env (reference)`, `DreamGym (full)`, `− history`, `− retrieval`, `− reasoning`. */
  name: string;
  synthetic: boolean;
  episodes: number;
  successRate: number;
  meanSteps: number;
  proxies: QualityProxies;
  judge?: JudgeSummary;
  seconds: number;
}

/** Everything `dreamgym quality` measured. */
export interface QualityResult {
  env: string;
  model: string;
  policy: string;
  tasks: number;
  groupSize: number;
  offlineEpisodes: number;
  /** Distinct entities in the buffer's real observations (the hallucination proxy's vocabulary). */
  vocabulary: number;
  /** Whether the − reasoning row was measured, or why it does not apply. */
  reasoningAblation: string;
  /** Whether the − retrieval row was measured, or why it does not apply. */
  retrievalAblation: string;
  judge?: { llm: string; promptTokens: number; completionTokens: number; costUsd: number };
  rows: QualityRow[];
}

/**
 * Experience quality: the same fixed policy plays `groupSize` episodes of each held-out task in
 * the real env (the reference row, labelled as such), in the synthetic env over the full model,
 * without history, and without retrieval (the model built over an empty buffer, k = 0; left out,
 * with the reason in `retrievalAblation`, when that model cannot begin an episode). Each row is
 * scored by the LLM-free proxies and, optionally, by an LLM judge.
 */
export async function runQuality(o: QualityOptions): Promise<QualityResult> {
  const log = o.onProgress ?? (() => {});
  const lens = lensFor(o.setup.name);
  const vocabulary = entityVocabulary(o.offline, lens);
  const buffer = await ReplayBuffer.open({ encoder: new TransitionEncoder() });
  const empty = await ReplayBuffer.open({ encoder: new TransitionEncoder() });
  try {
    await buffer.add([...o.offline]);
    const model = await o.model(buffer);
    const ungrounded = await o.model(empty);
    const schedule = o.tasks.flatMap((t) => Array.from({ length: o.groupSize }, () => t));
    const play = async (env: ReturnType<EnvSetup['makeReal']>, synthetic: boolean) => {
      try {
        return await collect({
          env,
          policy: o.policy,
          tasks: schedule,
          episodes: schedule.length,
          seed: o.seed,
          provenance: synthetic ? 'synthetic' : 'real-online',
        });
      } finally {
        await env.close();
      }
    };
    const sources: Array<{ name: string; env: () => ReturnType<EnvSetup['makeReal']> }> = [
      { name: 'real env (reference)', env: o.setup.makeReal },
      { name: 'DreamGym (full)', env: synthetic(o, buffer, model, {}) },
      { name: '− history', env: synthetic(o, buffer, model, { history: false }) },
    ];
    const unstartable = await cannotStart(ungrounded, o.tasks[0]);
    if (!unstartable)
      sources.push({ name: '− retrieval', env: synthetic(o, empty, ungrounded, { k: 0 }) });
    const direct = await o.withoutReasoning?.(buffer);
    if (direct) sources.push({ name: '− reasoning', env: synthetic(o, buffer, direct, {}) });
    const rows: QualityRow[] = [];
    for (const [i, source] of sources.entries()) {
      log(`${source.name}: ${schedule.length} episodes (${o.tasks.length} tasks × ${o.groupSize})`);
      const started = performance.now();
      const episodes = await play(source.env(), i > 0);
      const groups = groupByTask(episodes);
      const row: QualityRow = {
        name: source.name,
        synthetic: i > 0,
        episodes: episodes.length,
        successRate: episodes.filter(isSuccess).length / Math.max(1, episodes.length),
        meanSteps: episodes.reduce((s, t) => s + t.steps.length, 0) / Math.max(1, episodes.length),
        proxies: qualityProxies(groups, lens, vocabulary),
        seconds: 0,
      };
      if (o.judge) {
        log(`${source.name}: judging ${Math.min(o.judge.groups ?? 10, groups.length)} task groups`);
        row.judge = await judge(o.judge, groups, buffer);
      }
      row.seconds = (performance.now() - started) / 1000;
      rows.push(row);
    }
    const stats = o.judge?.llm.stats();
    return {
      env: o.setup.name,
      model: model.id,
      policy: o.policy.id,
      tasks: o.tasks.length,
      groupSize: o.groupSize,
      offlineEpisodes: o.offline.length,
      vocabulary: vocabulary.size,
      reasoningAblation: direct
        ? `measured (${direct.id})`
        : `does not apply: ${model.id} does not reason (only the LLM experience model writes reasoning before its prediction)`,
      retrievalAblation: unstartable
        ? `does not apply: over an empty buffer ${ungrounded.id} cannot begin an episode (${unstartable.replace(/\.$/, '')})`
        : 'measured (the model over an empty buffer, k = 0)',
      ...(o.judge &&
        stats && {
          judge: {
            llm: o.judge.llm.id,
            promptTokens: stats.promptTokens,
            completionTokens: stats.completionTokens,
            costUsd: stats.costUsd,
          },
        }),
      rows,
    };
  } finally {
    await buffer.close();
    await empty.close();
  }
}

/**
 * Why `model` cannot show the first page of `task` with no demonstrations, or undefined when it
 * can: the web model over an empty buffer has no page to start from (the webshop and household
 * models know their start pages from the grammar).
 */
async function cannotStart(model: ExperienceModel, task: Task | undefined) {
  if (!task) return undefined;
  try {
    await model.initial(task, []);
    return undefined;
  } catch (error) {
    if (error instanceof ExperienceModelError) return error.message;
    throw error;
  }
}

function synthetic(
  o: QualityOptions,
  buffer: ReplayBuffer,
  model: ExperienceModel,
  options: SyntheticOptions,
) {
  return syntheticFactory(o.setup, buffer, model, { k: o.k, ...options });
}

async function judge(
  options: QualityJudgeOptions,
  groups: readonly Trajectory[][],
  buffer: ReplayBuffer,
): Promise<JudgeSummary> {
  const answers: JudgeAnswer[] = [];
  let failures = 0;
  for (const group of groups.slice(0, options.groups ?? 10)) {
    const first = group[0] as Trajectory;
    const references = await buffer.retrieve(
      { state: first.initial, action: first.steps[0]?.action ?? '', task: first.task },
      options.references ?? 3,
      { env: first.env, provenance: ['real-offline', 'real-online'] },
    );
    try {
      answers.push(await judgeGroup(options.llm, group, references));
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      failures++;
    }
  }
  const scores = Object.fromEntries(
    CRITERIA.map((c) => [c, meanInterval(answers.map((a) => a[c].score))]),
  ) as Record<Criterion, Estimate>;
  return { scores, failures, ...(answers[0] && { example: answers[0] }) };
}
