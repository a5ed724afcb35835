import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initTf } from '../core/tf.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import { type TrainerConfig, train } from '../rl/trainer.ts';
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
}

export interface DreamTrainingResult {
  syntheticSteps: number;
  /** Training time, loading excluded. */
  seconds: number;
}

/** Runs a {@link DreamTrainingJob} on this thread. */
export async function trainDream(job: DreamTrainingJob): Promise<DreamTrainingResult> {
  await initTf();
  const buffer = await ReplayBuffer.open({
    path: job.bufferPath,
    encoder: new TransitionEncoder(),
  });
  try {
    const model = await llmFreeModel(job.site, buffer);
    const setup = webSetup(job.site, 0, job.maxEpisodeSteps);
    const wanted = new Set(job.taskIds);
    const tasks = setup.trainTasks.filter((t) => wanted.has(t.id));
    const policy = await ChoicePolicy.load(job.startPolicy);
    try {
      const started = performance.now();
      const history = await train(
        {
          policy,
          makeEnv: syntheticFactory({ ...setup, trainTasks: tasks }, buffer, model),
          trainTasks: tasks,
          provenance: 'synthetic',
        },
        job.trainer,
      );
      const seconds = (performance.now() - started) / 1000;
      await policy.save(job.outPolicy);
      await writeFile(join(job.outPolicy, 'job.json'), `${JSON.stringify(job, null, 2)}\n`);
      return { syntheticSteps: history.at(-1)?.envSteps ?? 0, seconds };
    } finally {
      policy.dispose();
    }
  } finally {
    await buffer.close();
  }
}

/** What the training thread posts back. */
export type DreamTrainingReply = DreamTrainingResult | { error: string };
