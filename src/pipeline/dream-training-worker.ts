/** Worker-thread side of `trainDreamInWorker` (dream-training-thread.ts): runs the job in `workerData`, posts the result. */
import { parentPort, workerData } from 'node:worker_threads';
import { type DreamTrainingJob, type DreamTrainingReply, trainDream } from './dream-training.ts';

const port = parentPort;
if (!port) throw new Error('dream-training-worker.ts runs as a worker thread, not on its own.');
let reply: DreamTrainingReply;
try {
  reply = await trainDream(workerData as DreamTrainingJob);
} catch (error) {
  reply = { error: (error as Error).message ?? String(error) };
}
port.postMessage(reply);
