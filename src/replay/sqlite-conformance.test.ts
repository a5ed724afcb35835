import { describe, it } from 'vitest';
import { runReplayBufferConformance } from './conformance.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';

runReplayBufferConformance(
  { name: 'SQLite (in memory)', open: async () => SqliteReplayBuffer.open() },
  { describe, it },
);
runReplayBufferConformance(
  {
    name: 'SQLite (in memory, ANN past 5 transitions)',
    open: async () => SqliteReplayBuffer.open({ annThreshold: 5 }),
  },
  { describe, it },
);
