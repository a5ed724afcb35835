import { beforeAll, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../core/types.ts';
import { HashingEmbedder } from '../embed/hashing-embedder.ts';
import { webshopTrajectories } from './testing/fixtures.ts';
import { ThreadedTransitionEncoder } from './threaded-encoder.ts';
import { TransitionEncoder } from './transition-encoder.ts';

let keys: ReturnType<typeof transitions>;
beforeAll(async () => {
  keys = (await webshopTrajectories(40)).flatMap((t: Trajectory) => transitions(t));
});

describe('ThreadedTransitionEncoder', () => {
  it('gives exactly the vectors and id of the same encoder on the main thread', async () => {
    const threaded = new ThreadedTransitionEncoder({ minWorkerBatch: 10 });
    const inline = new TransitionEncoder(new HashingEmbedder({ dimensions: 128 }));
    expect(threaded.id).toBe(inline.id);
    expect(threaded.dimensions).toBe(384);
    expect(keys.length).toBeGreaterThan(10);
    const expected = await inline.encode(keys);
    await threaded.warm();
    expect(threaded.workerReady).toBe(true);
    // Two batches in flight at once come back to the right callers.
    const [big, other, small] = await Promise.all([
      threaded.encode(keys),
      threaded.encode(keys.slice(5, 30)),
      threaded.encode(keys.slice(0, 3)),
    ]);
    expect(big.map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    expect(other.map((v) => [...v])).toEqual(expected.slice(5, 30).map((v) => [...v]));
    expect(small.map((v) => [...v])).toEqual(expected.slice(0, 3).map((v) => [...v]));
    await threaded.close();
    expect(threaded.workerReady).toBe(false);
    // Until a new worker is ready, big batches are encoded on the calling thread.
    const meanwhile = await threaded.encode(keys);
    expect(meanwhile.map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    await threaded.warm();
    expect((await threaded.encode(keys)).map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    await threaded.close();
  });

  it('encodes on the calling thread, with a warning, when the worker dies mid-batch', async () => {
    const threaded = new ThreadedTransitionEncoder({ minWorkerBatch: 10 });
    const expected = await new TransitionEncoder(new HashingEmbedder({ dimensions: 128 })).encode(
      keys,
    );
    await threaded.warm();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const pending = threaded.encode(keys);
    // Kill the worker before it answers.
    await (threaded as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const vectors = await pending;
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(vectors.map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    expect(warnings.join('\n')).toMatch(/worker exited.*main thread from now on/);
    expect(threaded.workerReady).toBe(false);
    expect((await threaded.encode(keys)).length).toBe(keys.length);
    await threaded.close();
  });
});
