/**
 * Worker-thread side of {@link ThreadedTransitionEncoder}: builds the same hashing transition
 * encoder from `workerData`, says 'ready', then answers `{ id, texts }` with `{ id, vectors }`,
 * the vectors laid end to end in one transferred buffer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HashingEmbedder, type HashingEmbedderOptions } from '../embed/hashing-embedder.ts';
import {
  type EncoderWeights,
  TransitionEncoder,
  type TransitionKey,
} from './transition-encoder.ts';

export interface EncoderWorkerData {
  hashing: HashingEmbedderOptions;
  weights: EncoderWeights;
}

/** `texts` holds each key's state text, action and instruction, in that order. */
export type EncoderRequest = { id: number; texts: string[] };
export type EncoderReply = { id: number; vectors: Float32Array } | { id: number; error: string };

const { hashing, weights } = workerData as EncoderWorkerData;
const encoder = new TransitionEncoder(new HashingEmbedder(hashing), weights);
const port = parentPort;
if (!port) throw new Error('encoder-worker.ts runs as a worker thread, not on its own.');

port.on('message', async ({ id, texts }: EncoderRequest) => {
  try {
    const keys: TransitionKey[] = [];
    for (let i = 0; i < texts.length; i += 3) {
      keys.push({
        state: { text: texts[i] as string },
        action: texts[i + 1] as string,
        task: { instruction: texts[i + 2] as string },
      });
    }
    const vectors = await encoder.encode(keys);
    const flat = new Float32Array(keys.length * encoder.dimensions);
    vectors.forEach((v, i) => {
      flat.set(v, i * encoder.dimensions);
    });
    port.postMessage({ id, vectors: flat } satisfies EncoderReply, [flat.buffer]);
  } catch (error) {
    port.postMessage({ id, error: String(error) } satisfies EncoderReply);
  }
});
port.postMessage('ready');
