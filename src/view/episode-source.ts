import type { Trajectory } from '../core/types.ts';
import type { TrajectoryHeader } from '../replay/buffer-reader.ts';

/** One episode in a line, as the episode list shows and filters it. */
export interface EpisodeSummary extends TrajectoryHeader {
  /** The task's instruction. */
  instruction: string;
}

/**
 * Where a viewer's episodes come from: a replay buffer or a trajectory file, read only. Sources
 * may grow while they are viewed (a live run); `poll` returns what was added since its last call.
 */
export interface EpisodeSource {
  /** What is being viewed, in words, e.g. `replay buffer runs/x/buffer.db`. */
  readonly description: string;
  /** Episodes added since the last call, oldest first; every episode on the first call. */
  poll(): Promise<EpisodeSummary[]>;
  /** One episode with its steps; undefined for an unknown id. */
  episode(id: string): Promise<Trajectory | undefined>;
  /** Problems that failed no page (a malformed line of a trajectory file, say). */
  warnings(): readonly string[];
  close(): Promise<void>;
}

/** How an episode ended: `terminated`, or truncated and why (`time-limit`, `model-error`, …). */
export function endReason(trajectory: Trajectory): string {
  const last = trajectory.steps.at(-1);
  if (!last) return 'no steps';
  if (last.terminated) return 'terminated';
  const by = last.info?.truncatedBy;
  return typeof by === 'string' ? by : last.truncated ? 'truncated' : 'not ended';
}
