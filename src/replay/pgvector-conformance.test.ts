import { afterEach, describe, it } from 'vitest';
import { runReplayBufferConformance } from './conformance.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import {
  startTestPglite,
  type TestPglite,
  type TestPgliteOptions,
} from './testing/pglite-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

/** The PGlite servers of the running test (each test its own database), stopped after it. */
const servers: TestPglite[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function newDatabase(options?: TestPgliteOptions): Promise<string> {
  const server = await startTestPglite(options);
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
