/**
 * A served buffer's write-back on PostgreSQL while another connection holds the write lock (a
 * long import): past the bound, pushes wait instead of dropping episodes (issue 58).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/types.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { WRITE_LOCK } from './postgres-schema.ts';
import { relabel, webshopTrajectories } from './testing/fixtures.ts';
import { startTestPostgres, type TestPostgres } from './testing/postgres-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';
import { WriteBehind } from './write-behind.ts';

let server: TestPostgres;
let episodes: Trajectory[];
beforeAll(async () => {
  [server, episodes] = await Promise.all([startTestPostgres(), webshopTrajectories(20)]);
}, 120_000);
afterAll(() => server?.stop());

describe('WriteBehind on PostgreSQL', () => {
  it('while the write lock is held, answers the first pushes, holds back the rest, and stores all', async () => {
    const url = await server.newDatabase();
    const buffer = await PostgresReplayBuffer.open({ url, encoder: new TransitionEncoder() });
    const importer = new pg.Client({ connectionString: url });
    await importer.connect();
    try {
      await importer.query('BEGIN');
      await importer.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      const warnings: string[] = [];
      const writer = new WriteBehind(buffer, { maxUnwritten: 5, warn: (m) => warnings.push(m) });
      const served = relabel(episodes, 'synthetic', 'served');
      const answered = new Set<number>();
      const pushes = served.map((t, i) => writer.push(t).then(() => answered.add(i)));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect([...answered].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
      expect(writer.waiting).toBe(15);
      expect(warnings).toEqual([expect.stringMatching(/back-pressure/)]);
      await importer.query('COMMIT');
      await Promise.all(pushes);
      await writer.close();
      const ids = new Set(await buffer.trajectoryIds({ provenance: 'synthetic' }));
      expect(served.filter((t) => !ids.has(t.id))).toEqual([]);
    } finally {
      await importer.end();
      await buffer.close();
    }
  }, 60_000);
});
