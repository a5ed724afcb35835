/**
 * Issue 22, items 1 and 6: a buffer that serves retrievals (a synthetic env's server) while
 * another connection — another process, as far as SQLite is concerned — writes a bulk import into
 * the same database. The server's event loop must keep turning: waiting for the import's write
 * lock and indexing the imported rows both happen without blocking it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../core/types.ts';
import { BufferLockedError } from './buffer-errors.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';
import { relabel, webshopTrajectories } from './testing/fixtures.ts';
import { type KeyEncoder, TransitionEncoder } from './transition-encoder.ts';

let real: Trajectory[];
beforeAll(async () => {
  real = await webshopTrajectories(100);
});

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'dreamgym-concurrency-')), 'buffer.db');

/** Counts event-loop turns (1 ms timer ticks) until stopped. */
function tickCounter() {
  let ticks = 0;
  const timer = setInterval(() => {
    ticks++;
  }, 1);
  return {
    get ticks() {
      return ticks;
    },
    stop: () => clearInterval(timer),
  };
}

let open: SqliteReplayBuffer[] = [];
afterEach(async () => {
  await Promise.all(open.map((b) => b.close()));
  open = [];
});

describe('a serving buffer while another process imports', () => {
  it('indexes the other process’s import in slices, serving retrievals meanwhile', async () => {
    const path = tempDb();
    const server = SqliteReplayBuffer.open({ path, annThreshold: 200 });
    const importer = SqliteReplayBuffer.open({ path, annThreshold: Number.POSITIVE_INFINITY });
    open.push(server, importer);
    await server.add(real.slice(0, 10));
    expect((await server.stats()).retrieval).toBe('exact');
    // The importer commits thousands of transitions and has not built or saved an index.
    const imported = Array.from({ length: 8 }, (_, i) =>
      relabel(real, 'real-offline', `imp${i}`),
    ).flat();
    await importer.add(imported);
    const transitionsImported = imported.reduce((n, t) => n + t.steps.length, 0);
    expect(transitionsImported).toBeGreaterThan(2000);

    // The server's next write-back crosses the threshold: the index is built from the database.
    const loop = tickCounter();
    let settled = false;
    let retrievedWhileIndexing = false;
    const key = transitions(real[3] as Trajectory)[1] as ReturnType<typeof transitions>[number];
    const adding = server.add(relabel(real.slice(10, 11), 'synthetic', 'wb')).finally(() => {
      settled = true;
    });
    // A retrieval asked while the index is being built is answered before the build ends.
    const asked = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (loop.ticks < 3) return;
        clearInterval(poll);
        void server.retrieve(key, 4).then((hits) => {
          retrievedWhileIndexing = !settled && hits.length === 4;
          resolve();
        });
      }, 1);
    });
    await adding;
    await asked;
    loop.stop();
    // The old code built the whole index in one synchronous call: no turn of the loop, and the
    // retrieval waited for it.
    expect(retrievedWhileIndexing).toBe(true);
    expect(loop.ticks).toBeGreaterThan(10);
    expect((await server.stats()).retrieval).toBe('ann');
    // Every imported transition is in the index: the other process's rows were not skipped.
    const probe = imported[imported.length - 1] as Trajectory;
    const [best] = await server.retrieve(transitions(probe)[0] as NonNullable<typeof key>, 1, {
      provenance: 'real-offline',
    });
    expect(best?.similarity).toBeCloseTo(1, 4);
  }, 120_000);

  it('keeps remembered answers while another process’s import is indexed, slice by slice', async () => {
    const path = tempDb();
    let encodings = 0;
    const plain = new TransitionEncoder();
    const encoder: KeyEncoder = {
      id: plain.id,
      dimensions: plain.dimensions,
      encode: (keys) => {
        encodings += keys.length;
        return plain.encode(keys);
      },
    };
    const server = SqliteReplayBuffer.open({ path, annThreshold: 50, encoder });
    const importer = SqliteReplayBuffer.open({ path, annThreshold: Number.POSITIVE_INFINITY });
    open.push(server, importer);
    await server.add(real.slice(0, 40));
    const imported = Array.from({ length: 8 }, (_, i) =>
      relabel(real, 'real-offline', `mem${i}`),
    ).flat();
    await importer.add(imported);
    // The server's next add starts the catch-up of the import, which takes many slices.
    let settled = false;
    const adding = server.add(relabel(real.slice(40, 41), 'synthetic', 'wb')).finally(() => {
      settled = true;
    });
    const key = transitions(real[3] as Trajectory)[1] as ReturnType<typeof transitions>[number];
    await setImmediate();
    await server.retrieve(key, 4, { provenance: 'real-offline' });
    const before = encodings;
    let asked = 0;
    while (!settled && asked < 20) {
      await setImmediate(); // a slice of the catch-up runs
      await server.retrieve(key, 4, { provenance: 'real-offline' });
      asked++;
    }
    await adding;
    expect(asked).toBeGreaterThan(2);
    // Answered from the memo every time: slices in between did not clear it.
    expect(encodings).toBe(before);
  }, 120_000);

  it('a live index catches up with rows another process added before this one’s own add', async () => {
    const path = tempDb();
    const server = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    const other = SqliteReplayBuffer.open({ path, annThreshold: Number.POSITIVE_INFINITY });
    open.push(server, other);
    await server.add(real.slice(0, 40));
    expect((await server.stats()).retrieval).toBe('ann');
    const theirs = relabel(real.slice(40, 60), 'real-online', 'theirs');
    await other.add(theirs);
    await server.add(relabel(real.slice(60, 61), 'synthetic', 'mine'));
    for (const trajectory of theirs.slice(0, 5)) {
      const [key] = transitions(trajectory);
      // No filter: the answer is the index's own (a filtered search falls back to exact search).
      const [best] = await server.retrieve(key as NonNullable<typeof key>, 1);
      expect(best?.trajectoryId).toBe(trajectory.id);
    }
  });

  it('an add waits for another process’s write lock without blocking the event loop', async () => {
    const path = tempDb();
    const buffer = SqliteReplayBuffer.open({ path, annThreshold: 50 });
    open.push(buffer);
    await buffer.add(real.slice(0, 5));
    const waits: string[] = [];
    const patient = SqliteReplayBuffer.open({ path, onLockWait: (m) => waits.push(m) });
    open.push(patient);
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE'); // as a bulk import holds it, for longer than SQLite's 5 s
    const loop = tickCounter();
    const started = performance.now();
    let done = false;
    const adding = patient.add(real.slice(5, 10)).then((counts) => {
      done = true;
      return counts;
    });
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(done).toBe(false);
    // Ticks every millisecond or so: the loop kept turning (SQLite's busy wait would have
    // frozen it for 5 s, then failed with "database is locked").
    expect(loop.ticks).toBeGreaterThan(500);
    expect(waits.join('\n')).toMatch(/being written by another process; waiting for it to finish/);
    holder.exec('COMMIT');
    holder.close();
    expect(await adding).toEqual({ added: 5, skipped: 0 });
    loop.stop();
    expect(performance.now() - started).toBeGreaterThan(6000);
    expect((await patient.stats()).trajectories).toBe(10);
  }, 60_000);

  it('gives up after lockTimeoutMs with a message naming the fix', async () => {
    const path = tempDb();
    const buffer = SqliteReplayBuffer.open({ path, lockTimeoutMs: 300 });
    open.push(buffer);
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const failed = buffer.add(real.slice(0, 2));
      await expect(failed).rejects.toThrow(BufferLockedError);
      await expect(failed).rejects.toThrow(
        /being written by another process.*let that write finish/,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await buffer.add(real.slice(0, 2))).toEqual({ added: 2, skipped: 0 });
  });
});
