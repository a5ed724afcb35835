import type { AddResult, ReplayBuffer } from './replay-buffer.ts';

/**
 * Streams every trajectory of one buffer into another (SQLite → PostgreSQL or back), one
 * trajectory in memory at a time and in one transaction on the target: all or nothing, ids
 * already in the target skipped. Vectors are recomputed by the target's encoder.
 */
export function migrateBuffer(from: ReplayBuffer, to: ReplayBuffer): Promise<AddResult> {
  return to.addStream(from.trajectories());
}
