import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initTf } from '../core/tf.ts';
import type { Task, Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import type { CurriculumReport } from '../curriculum/curriculum-report.ts';
import { WebTaskVariations } from '../curriculum/generators/web-variations.ts';
import type { CurriculumMode } from '../curriculum/selection.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { collectingSuccesses } from '../envs/wrappers/record-episodes.ts';
import { type ExperienceChoice, llmFreeModel } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import { type TrainerConfig, train } from '../rl/trainer.ts';
import { type BranchingOptions, bufferBranchPoints } from './branching.ts';
import { syntheticFactory } from './experiment.ts';
import { webSetup } from './web-setup.ts';

/**
 * One DreamGym RL row of the web table: a policy trained only in the synthetic env of a site,
 * learnt by the LLM-free web model from a replay buffer file. Everything is named by files and
 * ids, so the job can run on a thread of its own (`trainDreamInWorker`).
 */
export interface DreamTrainingJob {
  /** Env name, e.g. `web:forum`. */
  site: string;
  /** The SQLite replay buffer holding the offline demonstrations (read only). */
  bufferPath: string;
  /** Ids of the train tasks RL trains on. */
  taskIds: string[];
  /** Folder of the policy to start from ({@link ChoicePolicy.save}). */
  startPolicy: string;
  /** Folder the trained policy is saved to, with this job as `job.json` (how it was trained). */
  outPolicy: string;
  /** The trainer's settings (algorithm, iterations, seed, …); plain data. */
  trainer: Partial<TrainerConfig>;
  maxEpisodeSteps: number;
  /**
   * DreamGym's curriculum over the tasks, with variations from the buffer's real pages
   * ({@link WebTaskVariations}); absent: the tasks uniformly, as `mode: 'off'`.
   */
  curriculum?: { mode: CurriculumMode; generatedShare?: number; minTemplateEvidence?: number };
  /** Send the synthetic successes back (to replay them in the real env). */
  returnSuccesses?: boolean;
  /** Which LLM-free experience model to learn (see `llmFreeModel`); default `auto`, the web model. */
  experience?: ExperienceChoice;
  /** Branched rollouts from the buffer's real states (see `TrainerConfig.branching`). */
  branching?: BranchingOptions;
}

export interface DreamTrainingResult {
  syntheticSteps: number;
  /** Training time, loading excluded. */
  seconds: number;
  /** Mean over iterations of the share of rollout groups whose rewards varied. */
  informativeShare: number;
  /** What the curriculum selected, by WebArena template (`intent_template_id`). */
  selection?: CurriculumReport;
  /** The synthetic successes, when asked for. */
  successes?: Trajectory[];
}

/** Runs a {@link DreamTrainingJob} on this thread. */
export async function trainDream(job: DreamTrainingJob): Promise<DreamTrainingResult> {
  await initTf();
  const buffer = await ReplayBuffer.open({
    path: job.bufferPath,
    encoder: new TransitionEncoder(),
  });
  try {
    const model = await llmFreeModel(job.site, buffer, { experience: job.experience ?? 'auto' });
    const setup = webSetup(job.site, 0, job.maxEpisodeSteps);
    const wanted = new Set(job.taskIds);
    const tasks = setup.trainTasks.filter((t) => wanted.has(t.id));
    const policy = await ChoicePolicy.load(job.startPolicy);
    const curriculum = job.curriculum && (await webCurriculum(job, buffer, tasks));
    const makeSynthetic = syntheticFactory({ ...setup, trainTasks: tasks }, buffer, model);
    const successes: Trajectory[] = [];
    const branching = job.branching?.share
      ? await bufferBranchPoints(buffer, job.site, policy, job.branching.pick)
      : undefined;
    try {
      const started = performance.now();
      const history = await train(
        {
          policy,
          makeEnv: job.returnSuccesses
            ? collectingSuccesses(makeSynthetic, successes, 'synthetic')
            : makeSynthetic,
          trainTasks: tasks,
          provenance: 'synthetic',
          ...(curriculum && { schedule: curriculum }),
          ...(branching && { branchPoints: branching.branchPoints }),
        },
        {
          ...job.trainer,
          ...(job.branching && {
            branching: { share: job.branching.share, horizon: job.branching.horizon },
          }),
        },
      );
      const seconds = (performance.now() - started) / 1000;
      await policy.save(job.outPolicy);
      await writeFile(join(job.outPolicy, 'job.json'), `${JSON.stringify(job, null, 2)}\n`);
      return {
        syntheticSteps: history.at(-1)?.envSteps ?? 0,
        seconds,
        informativeShare:
          history.reduce((s, m) => s + m.rollout.informativeGroups, 0) /
          Math.max(1, history.length),
        ...(curriculum && {
          selection: await curriculum.report((t) => {
            const id = (t.spec as { intent_template_id?: unknown } | undefined)?.intent_template_id;
            return id === undefined ? undefined : String(id);
          }),
        }),
        ...(job.returnSuccesses && { successes }),
      };
    } finally {
      policy.dispose();
    }
  } finally {
    await buffer.close();
  }
}

/**
 * The job's curriculum over `tasks`, its variations learnt from the buffer's real episodes of
 * the site; its pool in memory (one row's).
 */
async function webCurriculum(
  job: DreamTrainingJob,
  buffer: ReplayBuffer,
  tasks: readonly Task[],
): Promise<Curriculum> {
  const real: Trajectory[] = [];
  for (const provenance of ['real-offline', 'real-online'] as const)
    for await (const t of buffer.trajectories({ env: job.site, provenance })) real.push(t);
  return new Curriculum(
    {
      pool: SqliteTaskPool.open(),
      seedTasks: tasks,
      generator: WebTaskVariations.fromTrajectories(real, {
        ...(job.curriculum?.minTemplateEvidence !== undefined && {
          minTemplateEvidence: job.curriculum.minTemplateEvidence,
        }),
      }),
    },
    {
      mode: job.curriculum?.mode ?? 'variance',
      ...(job.curriculum?.generatedShare !== undefined && {
        generatedShare: job.curriculum.generatedShare,
      }),
      seed: job.trainer.seed ?? 0,
    },
  );
}

/** What the training thread posts back. */
export type DreamTrainingReply = DreamTrainingResult | { error: string };
