import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../core/types.ts';
import { runReplayBufferConformance } from './conformance.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { startTestPglite, type TestPglite } from './testing/pglite-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

/** The PGlite servers of the running test (each test its own database), stopped after it. */
const servers: TestPglite[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function newDatabase(): Promise<string> {
  const server = await startTestPglite();
  servers.push(server);
  return server.url;
}

/** One connection: see `MAX_CONNECTIONS` in testing/pglite-server.ts. */
function open(url: string): Promise<PostgresReplayBuffer> {
  return PostgresReplayBuffer.open({ url, encoder: new TransitionEncoder(), poolSize: 1 });
}

runReplayBufferConformance(
  {
    name: 'PostgreSQL on PGlite (pgvector HNSW indexes in SQL)',
    open: async () => open(await newDatabase()),
  },
  { describe, it },
);

describe('the PostgreSQL buffer with pgvector (PGlite)', () => {
  it('retrieves with pgvector, not a silent fallback to usearch', async () => {
    const buffer = await open(await newDatabase());
    try {
      await buffer.add([
        ...aisle('red', 4, false),
        ...aisle('blue', 2, true).map((t) => ({ ...t, provenance: 'synthetic' as const })),
      ]);
      const stats = await buffer.stats();
      expect(stats.retrievalNote).toBeUndefined();
      expect(stats.retrieval).toBe('pgvector');
      expect(stats.annIndexed).toEqual({ real: 12, synthetic: 6 });
    } finally {
      await buffer.close();
    }
  });

  it('returns the exact k nearest under a filter most near neighbours fail, from the HNSW index', async () => {
    const url = await newDatabase();
    const buffer = await open(url);
    // Every red episode failed and every blue one succeeded: a red key's HNSW neighbourhood
    // holds hundreds of transitions before the first success.
    const won = aisle('blue', 20, true);
    await buffer.add([...aisle('red', 400, false), ...won]);
    const key = { state: { text: 'red aisle 7 shelf 1' }, action: 'click[red 7 1]', task: TASK };
    const stats = new pg.Client(url);
    await stats.connect();
    try {
      const scansBefore = await indexScans(stats);
      const found = await buffer.retrieve(key, 5, { success: true });
      expect(await indexScans(stats)).toBeGreaterThan(scansBefore);
      const wonKeys = won.flatMap(transitions);
      const vectors = await buffer.encoder.encode([key, ...wonKeys]);
      const exact = vectors
        .slice(1)
        .map((v) => cosine(vectors[0] as Float32Array, v))
        .sort((a, b) => b - a)
        .slice(0, 5);
      expect(found).toHaveLength(5);
      expect(found.every((r) => r.trajectoryId.startsWith('blue'))).toBe(true);
      found.forEach((r, i) => {
        expect(r.similarity).toBeCloseTo(exact[i] as number, 5);
      });
    } finally {
      await stats.end();
      await buffer.close();
    }
  }, 60_000);

  it('gives a database made without pgvector its vectors and indexes when opened where pgvector is', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dreamgym-pglite-'));
    const early = aisle('red', 6, false);
    const late = aisle('blue', 3, true);
    try {
      const without = await startTestPglite({ vector: false, dataDir });
      try {
        const buffer = await open(without.url);
        await buffer.add(early);
        const stats = await buffer.stats();
        await buffer.close();
        expect(stats.retrieval).toBe('ann');
        expect(stats.retrievalNote).toMatch(/pgvector is not installed/);
      } finally {
        await without.stop();
      }
      const withVector = await startTestPglite({ dataDir });
      try {
        const buffer = await open(withVector.url);
        try {
          expect((await buffer.stats()).retrieval).toBe('pgvector');
          const [old] = await buffer.retrieve(keyOf(early[3] as Trajectory, 1), 1);
          expect(old?.trajectoryId).toBe('red-3');
          expect(old?.similarity).toBeGreaterThan(0.999);
          await buffer.add(late);
          const [fresh] = await buffer.retrieve(keyOf(late[2] as Trajectory, 2), 1);
          expect(fresh?.trajectoryId).toBe('blue-2');
          expect((await buffer.stats()).annIndexed).toEqual({ real: 27, synthetic: 0 });
        } finally {
          await buffer.close();
        }
      } finally {
        await withVector.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

const TASK = { instruction: 'find the item' };

/** `count` three-step episodes in one aisle colour; all succeed or all fail. */
function aisle(colour: string, count: number, success: boolean): Trajectory[] {
  return Array.from({ length: count }, (_, i) => {
    const page = (s: number) => ({ text: `${colour} aisle ${i} shelf ${s}`, ...TASK });
    return {
      id: `${colour}-${i}`,
      env: 'shop',
      task: { id: 'find', env: 'shop', ...TASK, spec: {}, origin: 'seed' as const },
      initial: page(0),
      steps: [0, 1, 2].map((t) => ({
        action: `click[${colour} ${i} ${t}]`,
        observation: page(t + 1),
        reward: success && t === 2 ? 1 : 0,
        terminated: t === 2,
        truncated: false,
      })),
      provenance: 'real-offline' as const,
      policyId: 'test',
      startedAt: '2025-01-01T00:00:00.000Z',
      endedAt: '2025-01-01T00:01:00.000Z',
    };
  });
}

/** The retrieval key of an episode's step `t`. */
function keyOf(trajectory: Trajectory, t: number) {
  return transitions(trajectory)[t] as ReturnType<typeof transitions>[number];
}

/** Scans of the real transitions' HNSW index so far (statistics flushed first). */
async function indexScans(client: pg.Client): Promise<number> {
  await client.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await client.query(
    "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'transitions_vec_real'",
  );
  return Number(rows[0]?.idx_scan);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    aa += (a[i] as number) ** 2;
    bb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(aa * bb);
}
