import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayBufferConformance } from './conformance.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { startTestPostgres, type TestPostgres } from './testing/postgres-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop());

const open = async () =>
  PostgresReplayBuffer.open({ url: await server.newDatabase(), encoder: new TransitionEncoder() });

runReplayBufferConformance(
  { name: 'PostgreSQL (Debian server, usearch synced from the table)', open },
  { describe, it },
);

describe('the PostgreSQL buffer without pgvector', () => {
  // pgvector's path runs against PGlite (pgvector-conformance.test.ts); this server is the one
  // that tests the in-process indexes, so it must stay without the extension.
  it('retrieves with usearch indexes in the process and says why', async () => {
    const buffer = await open();
    try {
      const stats = await buffer.stats();
      expect(stats.retrieval).toBe('ann');
      expect(stats.retrievalNote).toMatch(/pgvector is not installed on the server/);
    } finally {
      await buffer.close();
    }
  });
});
