import { afterAll, beforeAll, describe, it } from 'vitest';
import { runReplayBufferConformance } from './conformance.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { startTestPostgres, type TestPostgres } from './testing/postgres-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop());

runReplayBufferConformance(
  {
    name: 'PostgreSQL (Debian server, usearch synced from the table)',
    open: async () =>
      PostgresReplayBuffer.open({
        url: await server.newDatabase(),
        encoder: new TransitionEncoder(),
      }),
  },
  { describe, it },
);
