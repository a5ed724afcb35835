/**
 * A PostgreSQL buffer that serves retrievals (a served synthetic env's) while another process
 * bulk-adds into the same database: its in-process index takes the import in slices, the event
 * loop keeps turning, and searches are not held up for the whole import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../core/types.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { relabel, webshopTrajectories } from './testing/fixtures.ts';
import { startTestPostgres, type TestPostgres } from './testing/postgres-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

let server: TestPostgres;
let real: Trajectory[];
beforeAll(async () => {
  [server, real] = await Promise.all([startTestPostgres(), webshopTrajectories(200)]);
}, 120_000);
afterAll(() => server?.stop());

describe('PostgreSQL buffer while another process imports', () => {
  it('indexes the import in slices and answers searches meanwhile from the index it has', async () => {
    const url = await server.newDatabase();
    const encoder = new TransitionEncoder();
    const serving = await PostgresReplayBuffer.open({ url, encoder });
    const importer = await PostgresReplayBuffer.open({ url, encoder });
    try {
      await serving.add(real.slice(0, 20));
      const imported = Array.from({ length: 12 }, (_, i) =>
        relabel(real, 'real-offline', `imp${i}`),
      ).flat();
      const total = [...real.slice(0, 20), ...imported].reduce((n, t) => n + t.steps.length, 0);
      await importer.add(imported);

      let longest = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      const key = transitions(real[3] as Trajectory)[1] as ReturnType<typeof transitions>[number];
      const hits = await serving.retrieve(key, 4);
      const indexedWhenAnswered = (await serving.stats()).annIndexed.real as number;
      // The next searches go on while the rest is indexed; one of them finally sees it all.
      for (
        let i = 0;
        i < 2000 && ((await serving.stats()).annIndexed.real as number) < total;
        i++
      ) {
        await serving.retrieve(key, 4);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      clearInterval(timer);
      expect(hits).toHaveLength(4);
      expect(indexedWhenAnswered).toBeLessThan(total);
      expect((await serving.stats()).annIndexed.real).toBe(total);
      // Before the slices, a 2,000-row page went into the index in one call (≈ 1 s here).
      expect(longest).toBeLessThan(300);
    } finally {
      await importer.close();
      await serving.close();
    }
  }, 120_000);
});
