import type { Provenance } from '../core/types.ts';
import { readTrajectoriesStream, TrajectoryWriter } from '../data/trajectory-file.ts';
import type { ReplayBuffer } from './replay-buffer.ts';

/**
 * Imports a trajectory JSONL file into the buffer, all or nothing: a malformed line fails the
 * whole import with `file:line` and nothing is kept. Read line by line in one transaction, so a
 * file of millions of transitions is never held in memory.
 */
export async function importJsonl(
  buffer: ReplayBuffer,
  path: string,
): Promise<{ added: number; skipped: number }> {
  return buffer.addStream(readTrajectoriesStream(path));
}

/** Writes the buffer's trajectories (optionally one env or provenance) as trajectory JSONL. */
export async function exportJsonl(
  buffer: ReplayBuffer,
  path: string,
  filter: { env?: string; provenance?: Provenance } = {},
): Promise<number> {
  const writer = await TrajectoryWriter.open(path);
  try {
    for (const trajectory of buffer.trajectories(filter)) await writer.write(trajectory);
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return writer.count;
}
