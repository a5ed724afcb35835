import { Worker } from 'node:worker_threads';
import type {
  DreamTrainingJob,
  DreamTrainingReply,
  DreamTrainingResult,
} from './dream-training.ts';

/**
 * Runs a {@link DreamTrainingJob} on a worker thread: synthetic training is one core's work, so
 * two rows train at once on two cores. The result is the same as `trainDream`'s on this
 * thread, to the weight.
 */
export function trainDreamInWorker(job: DreamTrainingJob): Promise<DreamTrainingResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./dream-training-worker.js', import.meta.url), {
      workerData: job,
    });
    let settled = false;
    const what = `${job.site} ${job.trainer.algo ?? 'grpo'} training thread`;
    worker.once('message', (reply: DreamTrainingReply) => {
      settled = true;
      if ('error' in reply) reject(new Error(`the ${what} failed: ${reply.error}`));
      else resolve(reply);
    });
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(new Error(`the ${what} failed: ${error.message}`));
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(new Error(`the ${what} exited with code ${code} before it finished`));
    });
  });
}
