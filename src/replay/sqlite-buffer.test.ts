import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DataFormatError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { isSuccess, type Trajectory, transitions } from '../core/types.ts';
import { encodeTrajectory } from '../data/trajectory-format.ts';
import { HashingEmbedder } from '../embed/hashing-embedder.ts';
import { exportJsonl, importJsonl } from './jsonl.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';
import { relabel, toArray, webshopTrajectories } from './testing/fixtures.ts';
import { ThreadedTransitionEncoder } from './threaded-encoder.ts';
import { TransitionEncoder } from './transition-encoder.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'dreamgym-buffer-'));

let real: Trajectory[];
let synthetic: Trajectory[];
beforeAll(async () => {
  real = await webshopTrajectories(60);
  synthetic = relabel(real.slice(0, 30), 'synthetic', 'syn');
});

describe('SqliteReplayBuffer', () => {
  it('stores trajectories with provenance, skips duplicates and counts them', async () => {
    const buffer = SqliteReplayBuffer.open();
    expect(await buffer.add(real)).toEqual({ added: 60, skipped: 0 });
    expect(await buffer.add([...real.slice(0, 5), ...synthetic])).toEqual({
      added: 30,
      skipped: 5,
    });
    const stats = await buffer.stats();
    const steps = (ts: Trajectory[]) => ts.reduce((s, t) => s + t.steps.length, 0);
    expect(stats.trajectories).toBe(90);
    expect(stats.transitions).toBe(steps(real) + steps(synthetic));
    expect(stats.byEnv.webshop?.['real-offline']?.trajectories).toBe(60);
    expect(stats.byEnv.webshop?.synthetic?.transitions).toBe(steps(synthetic));
    expect(stats.byEnv.webshop?.['real-offline']?.successRate).toBeCloseTo(
      real.filter(isSuccess).length / 60,
    );
    expect(stats.distinctObservations).toBeLessThan(2 * stats.transitions);
    expect(stats.retrieval).toBe('exact');
    await buffer.close();
  });

  it('rebuilds every trajectory exactly as added', async () => {
    const buffer = SqliteReplayBuffer.open();
    await buffer.add([...real, ...synthetic]);
    expect(await toArray(buffer.trajectories())).toEqual([...real, ...synthetic]);
    expect(await toArray(buffer.trajectories({ provenance: 'synthetic' }))).toEqual(synthetic);
    await buffer.close();
  });

  it('retrieves the exact duplicate of a stored transition first', async () => {
    const buffer = SqliteReplayBuffer.open();
    await buffer.add(real);
    for (const trajectory of real.slice(0, 10)) {
      for (const transition of transitions(trajectory)) {
        const [best] = await buffer.retrieve(transition, 5);
        expect(best?.similarity).toBeCloseTo(1, 5);
        expect(best?.state).toEqual(transition.state);
        expect(best?.action).toBe(transition.action);
        expect(best?.task.instruction).toBe(transition.task.instruction);
      }
    }
    await buffer.close();
  });

  it.each([
    ['exact', Number.POSITIVE_INFINITY],
    ['ANN', 50],
  ])(
    'honours the env, provenance, success and exclude filters (%s search)',
    async (mode, annThreshold) => {
      const buffer = SqliteReplayBuffer.open({ annThreshold });
      await buffer.add([...real, ...synthetic]);
      expect((await buffer.stats()).retrieval).toBe(mode.toLowerCase());
      const [key] = transitions(real[0] as Trajectory);
      if (!key) throw new Error('empty trajectory');
      const onlySynthetic = await buffer.retrieve(key, 8, { provenance: 'synthetic' });
      expect(onlySynthetic).toHaveLength(8);
      expect(onlySynthetic.every((r) => r.provenance === 'synthetic')).toBe(true);
      const real2 = await buffer.retrieve(key, 8, { provenance: ['real-offline', 'real-online'] });
      expect(real2.every((r) => r.provenance === 'real-offline')).toBe(true);
      const failures = await buffer.retrieve(key, 8, { success: false });
      const successfulIds = new Set(real.filter(isSuccess).map((t) => t.id));
      expect(failures.length).toBeGreaterThan(0);
      expect(
        failures.some(
          (r) => successfulIds.has(r.trajectoryId) || successfulIds.has(r.trajectoryId.slice(4)),
        ),
      ).toBe(false);
      const excluded = await buffer.retrieve(key, 8, { excludeTrajectory: real[0]?.id as string });
      expect(excluded.some((r) => r.trajectoryId === real[0]?.id)).toBe(false);
      expect(await buffer.retrieve(key, 8, { env: 'household' })).toEqual([]);
      await expect(buffer.retrieve(key, 8, { provenance: 'simulated' as never })).rejects.toThrow(
        /unknown provenance "simulated"; use real-offline, real-online or synthetic/,
      );
      const similarities = onlySynthetic.map((r) => r.similarity);
      expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
      await buffer.close();
    },
  );

  it('indexes real and synthetic transitions apart, the synthetic index once asked for', async () => {
    const steps = (ts: Trajectory[]) => ts.reduce((n, t) => n + t.steps.length, 0);
    const buffer = SqliteReplayBuffer.open({ annThreshold: 50 });
    await buffer.add(real);
    await buffer.add(synthetic);
    // Synthetic write-backs do not enter the index real demonstrations are searched in.
    expect((await buffer.stats()).annIndexed).toEqual({ real: steps(real), synthetic: null });
    const key = transitions(synthetic[2] as Trajectory)[1] as NonNullable<
      ReturnType<typeof transitions>[number]
    >;
    const exactly = await buffer.retrieve(key, 4, { provenance: 'synthetic' });
    expect(exactly[0]?.trajectoryId).toBe(synthetic[2]?.id);
    expect(exactly.every((r) => r.provenance === 'synthetic')).toBe(true);
    // The first search for synthetic neighbours started building their index.
    await vi.waitFor(async () =>
      expect((await buffer.stats()).annIndexed.synthetic).toBe(steps(synthetic)),
    );
    expect((await buffer.stats()).annIndexed.real).toBe(steps(real));
    const [best] = await buffer.retrieve(key, 4, { provenance: 'synthetic' });
    expect(best?.trajectoryId).toBe(synthetic[2]?.id);
    expect(best?.similarity).toBeCloseTo(1, 4);
    // No provenance filter: both indexes answer, merged by similarity (the synthetic copy and its
    // real original are the same transition).
    const both = await buffer.retrieve(key, 2);
    expect(both.map((r) => r.provenance).sort()).toEqual(['real-offline', 'synthetic']);
    expect(both.every((r) => r.similarity > 0.9999)).toBe(true);
    await buffer.close();
  });

  it('keeps remembered answers for real demonstrations when synthetic transitions are added', async () => {
    const inner = new TransitionEncoder();
    let queries = 0;
    const encoder = {
      id: inner.id,
      dimensions: inner.dimensions,
      encode: (keys: Parameters<TransitionEncoder['encode']>[0]) => {
        if (keys.length === 1) queries++;
        return inner.encode(keys);
      },
    };
    const buffer = SqliteReplayBuffer.open({ encoder });
    await buffer.add(real.slice(0, 30));
    const key = transitions(real[1] as Trajectory)[0] as NonNullable<
      ReturnType<typeof transitions>[number]
    >;
    const demonstrations = { provenance: ['real-offline', 'real-online'] } as const;
    const first = await buffer.retrieve(key, 4, demonstrations);
    await buffer.retrieve(key, 4, demonstrations);
    await buffer.retrieve(key, 4);
    expect(queries).toBe(2);
    await buffer.add(synthetic.slice(0, 5));
    expect(await buffer.retrieve(key, 4, demonstrations)).toEqual(first);
    expect(queries).toBe(2); // remembered: synthetic transitions cannot change it
    await buffer.retrieve(key, 4);
    expect(queries).toBe(3); // asked again: the new synthetic transitions may be among the nearest
    await buffer.add(relabel(real.slice(30, 32), 'real-online', 'online'));
    await buffer.retrieve(key, 4, demonstrations);
    expect(queries).toBe(4);
    await buffer.close();
  });

  it('samples with the asked real/synthetic mix and recency weighting', async () => {
    const buffer = SqliteReplayBuffer.open();
    await buffer.add([...real, ...synthetic]);
    const sample = await buffer.sample(4000, { realShare: 0.25, rng: new Rng(1) });
    const realShare = sample.filter((s) => s.provenance !== 'synthetic').length / sample.length;
    expect(realShare).toBeGreaterThan(0.22);
    expect(realShare).toBeLessThan(0.28);
    const uniform = await buffer.sample(4000, { realShare: 1, rng: new Rng(2) });
    const recent = await buffer.sample(4000, {
      realShare: 1,
      recencyHalfLife: 20,
      rng: new Rng(2),
    });
    const meanId = (xs: { id: number }[]) => xs.reduce((s, x) => s + x.id, 0) / xs.length;
    expect(meanId(recent)).toBeGreaterThan(meanId(uniform) + 50);
    expect(await buffer.sample(10, { env: 'household' })).toEqual([]);
    await expect(buffer.sample(10, { realShare: 2 })).rejects.toThrow(/realShare/);
    await buffer.close();
  });

  it('switches to the ANN index above the threshold, with high recall, and persists it', async () => {
    const path = join(tempDir(), 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path, annThreshold: 100 });
    await buffer.add(real.slice(0, 10));
    expect((await buffer.stats()).retrieval).toBe('exact');
    await buffer.add(real.slice(10));
    expect((await buffer.stats()).retrieval).toBe('ann');
    const exact = SqliteReplayBuffer.open();
    await exact.add(real);
    let hits = 0;
    let total = 0;
    for (const trajectory of real.slice(0, 15)) {
      for (const transition of transitions(trajectory)) {
        const approx = await buffer.retrieve(transition, 8);
        const truth = await exact.retrieve(transition, 8);
        const truthKeys = new Set(truth.map((r) => `${r.trajectoryId}/${r.t}`));
        hits += approx.filter((r) => truthKeys.has(`${r.trajectoryId}/${r.t}`)).length;
        total += truth.length;
        expect(approx[0]?.similarity).toBeCloseTo(1, 4);
      }
    }
    expect(hits / total).toBeGreaterThanOrEqual(0.95);
    await buffer.close();
    await exact.close();

    const reopened = SqliteReplayBuffer.open({ path, annThreshold: 100 });
    expect((await reopened.stats()).retrieval).toBe('ann');
    await reopened.add(synthetic);
    const [key] = transitions(synthetic[3] as Trajectory);
    const [best] = await reopened.retrieve(key as NonNullable<typeof key>, 3, {
      provenance: 'synthetic',
    });
    expect(best?.trajectoryId).toBe(synthetic[3]?.id);
    await reopened.close();
  });

  it("discards an index file that is not this database's and rebuilds it", async () => {
    const dir = tempDir();
    const path = join(dir, 'buffer.db');
    const first = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    await first.add(real);
    await first.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    expect(existsSync(`${path}.real.usearch`)).toBe(true);
    const second = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    await second.add(synthetic);
    expect((await second.stats()).retrieval).toBe('ann');
    const [key] = transitions(synthetic[0] as Trajectory);
    const hits = await second.retrieve(key as NonNullable<typeof key>, 5);
    expect(hits[0]?.similarity).toBeCloseTo(1, 4);
    expect(hits.every((h) => h.provenance === 'synthetic')).toBe(true);
    await second.close();
  });

  it('rebuilds a saved index built with other settings; f16 on 2 threads still finds the duplicate', async () => {
    const path = join(tempDir(), 'buffer.db');
    const graph = () => {
      const db = new Database(path, { readonly: true });
      const value = db.prepare("SELECT value FROM meta WHERE key = 'ann_real_graph'").pluck().get();
      db.close();
      return value;
    };
    const first = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    await first.add(real);
    await first.close();
    expect(graph()).toMatch(/:f32:16:128$/);
    const f32Bytes = statSync(`${path}.real.usearch`).size;
    const ann = { quantization: 'f16', threads: 2, expansionAdd: 64 } as const;
    const second = SqliteReplayBuffer.open({ path, annThreshold: 50, ann });
    await second.add(synthetic);
    for (const trajectory of [...real.slice(0, 5), ...synthetic.slice(0, 5)]) {
      const [key] = transitions(trajectory);
      const [best] = await second.retrieve(key as NonNullable<typeof key>, 3);
      expect(best?.similarity).toBeCloseTo(1, 2);
      expect(best?.t).toBe(0);
    }
    await second.close();
    expect(graph()).toMatch(/:f16:16:64$/);
    // Half-size vectors: the f32 file was not loaded and saved again.
    expect(statSync(`${path}.real.usearch`).size).toBeLessThan(0.8 * f32Bytes);
    expect(() =>
      SqliteReplayBuffer.open({ path, annThreshold: 50, ann: { quantization: 'f8' as 'f16' } }),
    ).toThrow(/quantization must be f32, f16 or i8, not "f8"/);
  });

  it('builds a lazy index while searches come back to back, the event loop never turning', async () => {
    const encoder = new TransitionEncoder(); // no worker: nothing ever waits on a macrotask
    const buffer = SqliteReplayBuffer.open({ annThreshold: 50, memoSize: 0, encoder });
    // Enough synthetic transitions that indexing them takes many slices.
    const many = Array.from({ length: 12 }, (_, c) =>
      relabel(real, 'synthetic', `many${c}`),
    ).flat();
    await buffer.add([...real, ...many]);
    const synthetic = many.reduce((n, t) => n + t.steps.length, 0);
    const [key] = transitions(many[0] as Trajectory);
    for (let i = 0; i < 5000 && (await buffer.stats()).annIndexed.synthetic === null; i++) {
      await buffer.retrieve(key as NonNullable<typeof key>, 3, { provenance: 'synthetic' });
    }
    expect((await buffer.stats()).annIndexed.synthetic).toBe(synthetic);
    await buffer.close();
  });

  it('catches the index up with transitions added after its last save (a crash before close)', async () => {
    const path = join(tempDir(), 'buffer.db');
    const first = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    await first.add(real);
    await first.close();
    const crashed = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    await crashed.add(synthetic);
    // No close(): the index file still holds only the real transitions.
    const reopened = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    for (const trajectory of synthetic.slice(0, 5)) {
      const [key] = transitions(trajectory);
      const [best] = await reopened.retrieve(key as NonNullable<typeof key>, 3, {
        provenance: 'synthetic',
      });
      expect(best?.trajectoryId).toBe(trajectory.id);
      expect(best?.similarity).toBeCloseTo(1, 4);
    }
    await reopened.close();
  });

  it('writes a bulk add in chunks, all or nothing, and holds readers off meanwhile', async () => {
    const gate = gatedEncoder();
    const gated = gate.encoder;
    const chunked = SqliteReplayBuffer.open({ chunkSize: 20, encoder: gated });
    const whole = SqliteReplayBuffer.open({ chunkSize: 1_000_000 });
    const adding = chunked.add([...real, ...synthetic]);
    await gate.started;
    await new Promise((resolve) => setImmediate(resolve));
    // Pipelined: the second chunk is sent to the encoder before the first is written.
    expect(gate.calls).toBe(2);
    await expect(chunked.stats()).rejects.toThrow(
      /while add\(\) is writing a bulk batch.*await the add/,
    );
    const key = transitions(synthetic[7] as Trajectory)[1] as NonNullable<
      ReturnType<typeof transitions>[number]
    >;
    // A retrieval started mid-add waits for the commit and sees the whole batch.
    const during = chunked.retrieve(key, 3, { provenance: 'synthetic' });
    gate.release();
    await adding;
    expect((await during)[0]?.trajectoryId).toBe(synthetic[7]?.id);
    await whole.add([...real, ...synthetic]);
    expect(await toArray(chunked.trajectories())).toEqual(await toArray(whole.trajectories()));
    // Inserts skip foreign-key checks for speed; every reference must still hold.
    for (const buffer of [chunked, whole]) expect(buffer.foreignKeyViolations()).toEqual([]);
    expect(await chunked.retrieve(key, 8)).toEqual(await whole.retrieve(key, 8));

    // A failure in a later chunk rolls back the chunks already written.
    const broken = relabel(real, 'real-online', 'broken');
    (broken[50] as { policyId: unknown }).policyId = null;
    await expect(chunked.add(broken)).rejects.toThrow(/NOT NULL/);
    expect((await chunked.stats()).trajectories).toBe(90);
    expect(await chunked.add(relabel(real, 'real-online', 'fine'))).toEqual({
      added: 60,
      skipped: 0,
    });
    await chunked.close();
    await whole.close();
  });

  it('a retrieval during a bulk add into an ANN-backed buffer sees the batch in the index', async () => {
    const gate = gatedEncoder();
    gate.holding = false;
    const buffer = SqliteReplayBuffer.open({
      chunkSize: 20,
      annThreshold: 50,
      encoder: gate.encoder,
    });
    await buffer.add(real.slice(0, 20));
    expect((await buffer.stats()).retrieval).toBe('ann');
    gate.holding = true;
    const adding = buffer.add(real.slice(20));
    await gate.started;
    const key = transitions(real[40] as Trajectory)[1] as NonNullable<
      ReturnType<typeof transitions>[number]
    >;
    const during = buffer.retrieve(key, 3);
    gate.release();
    await adding;
    const [best] = await during;
    expect(best?.trajectoryId).toBe(real[40]?.id);
    expect(best?.similarity).toBeCloseTo(1, 4);
    await buffer.close();
  });

  it('indexes vectors embedded on the worker thread (views into one buffer) correctly', async () => {
    const encoder = new ThreadedTransitionEncoder({ minWorkerBatch: 10 });
    await encoder.warm();
    const buffer = SqliteReplayBuffer.open({ annThreshold: 100, chunkSize: 80, encoder });
    await buffer.add(real); // past the threshold: the index is built from the database
    await buffer.add(synthetic); // in ANN mode: the worker's vectors go straight into the index
    expect((await buffer.stats()).retrieval).toBe('ann');
    for (const trajectory of synthetic.slice(0, 10)) {
      for (const transition of transitions(trajectory)) {
        const [best] = await buffer.retrieve(transition, 3, { provenance: 'synthetic' });
        expect(best?.similarity).toBeCloseTo(1, 4);
        expect(best?.state).toEqual(transition.state);
        expect(best?.action).toBe(transition.action);
      }
    }
    await buffer.close();
    await encoder.close();
  });

  it('refuses a database from a newer schema or another encoder, naming the fix', async () => {
    const path = join(tempDir(), 'buffer.db');
    await SqliteReplayBuffer.open({ path }).close();
    expect(() =>
      SqliteReplayBuffer.open({
        path,
        encoder: new TransitionEncoder(new HashingEmbedder({ dimensions: 64 })),
      }),
    ).toThrow(/same embedder settings/);
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => SqliteReplayBuffer.open({ path })).toThrow(/schema version 2.*Upgrade dreamgym/);
  });
});

describe('JSONL import and export', () => {
  it('streams a source into one transaction, as add would store it, skipping known ids', async () => {
    async function* source() {
      yield* real.slice(0, 20);
      yield* [...real.slice(10, 60), ...synthetic];
    }
    const streamed = SqliteReplayBuffer.open({ chunkSize: 7, annThreshold: 100 });
    await streamed.add(real.slice(0, 5));
    expect(await streamed.addStream(source())).toEqual({ added: 85, skipped: 15 });
    const added = SqliteReplayBuffer.open({ annThreshold: 100 });
    await added.add([...real, ...synthetic]);
    expect(await toArray(streamed.trajectories())).toEqual(await toArray(added.trajectories()));
    expect((await streamed.stats()).retrieval).toBe('ann');
    const key = transitions(synthetic[4] as Trajectory)[0] as NonNullable<
      ReturnType<typeof transitions>[number]
    >;
    expect(await streamed.retrieve(key, 8, { provenance: 'synthetic' })).toEqual(
      await added.retrieve(key, 8, { provenance: 'synthetic' }),
    );
    await streamed.close();
    await added.close();
  });

  it('round-trips through a file', async () => {
    const dir = tempDir();
    const buffer = SqliteReplayBuffer.open();
    await buffer.add([...real, ...synthetic]);
    expect(await exportJsonl(buffer, join(dir, 'all.jsonl'))).toBe(90);
    const copy = SqliteReplayBuffer.open();
    expect(await importJsonl(copy, join(dir, 'all.jsonl'))).toEqual({ added: 90, skipped: 0 });
    expect(await toArray(copy.trajectories())).toEqual(await toArray(buffer.trajectories()));
  });

  it('fails atomically on a malformed line, naming file and line', async () => {
    const file = join(tempDir(), 'bad.jsonl');
    const lines = real.slice(0, 5).map(encodeTrajectory);
    lines.splice(3, 0, '{"format":"dreamgym.trajectory","version":1,"id":');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // Small chunks: the lines before the bad one are written before it is read, then rolled back.
    const buffer = SqliteReplayBuffer.open({ chunkSize: 2 });
    const error = await importJsonl(buffer, file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFormatError);
    expect((error as DataFormatError).message).toContain(`${file}:4`);
    expect((await buffer.stats()).trajectories).toBe(0);
    expect(buffer.integrityCheck()).toBe('ok');
  });
});

/**
 * An encoder that holds batches (more than one key) back until `release()`, while `holding`;
 * `started` settles when the first held batch arrives. Single-key queries pass at once.
 */
function gatedEncoder() {
  const inner = new TransitionEncoder();
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let start = () => {};
  const started = new Promise<void>((resolve) => {
    start = resolve;
  });
  const gate = {
    holding: true,
    /** Batches asked for so far. */
    calls: 0,
    started,
    release: () => release(),
    encoder: {
      id: inner.id,
      dimensions: inner.dimensions,
      encode: async (keys: Parameters<TransitionEncoder['encode']>[0]) => {
        if (keys.length > 1) gate.calls++;
        if (gate.holding && keys.length > 1) {
          start();
          await released;
        }
        return inner.encode(keys);
      },
    },
  };
  return gate;
}
