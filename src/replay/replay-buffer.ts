import type { Provenance, Trajectory } from '../core/types.ts';
import type { BufferStats } from './buffer-stats.ts';
import type { RetrieveFilter } from './filter-index.ts';
import type { SampleOptions } from './sampling.ts';
import type { RetrievedTransition, StoredTransition } from './stored-transition.ts';
import type { KeyEncoder, TransitionKey } from './transition-encoder.ts';

/** What an add did: trajectories stored, and those skipped because their id was already stored. */
export interface AddResult {
  added: number;
  skipped: number;
}

/** How an add resolves. */
export interface AddOptions {
  /**
   * Resolve once the trajectories are committed, before this process's search indexes have taken
   * them in (they do shortly after): read-your-writes is given up for a quicker answer. For
   * writers that do not read back at once, such as a server's write-back, whose final step waits
   * for the add with `--durable`. Buffers that index within the commit (SQLite) ignore it.
   * @default true
   */
  waitForIndex?: boolean;
}

/** Which stored trajectories a read walks: one env, one provenance (or several). */
export interface TrajectoryFilter {
  env?: string;
  provenance?: Provenance | readonly Provenance[];
}

/**
 * The replay buffer: trajectories with provenance, every transition embedded for similarity
 * retrieval, shared by everything that learns from experience or writes it back. Implementations:
 * `SqliteReplayBuffer` (one file, embedded; the default) and `PostgresReplayBuffer` (one server,
 * many writers and readers on many machines); `ReplayBuffer.open` picks one from a location.
 * Every implementation passes `runReplayBufferConformance` (dreamgym/testing).
 *
 * Guarantees all implementations keep:
 * - an add is all or nothing, trajectories whose id is stored are skipped, and the add's
 *   transitions are returned by `retrieve`, `sample` and the readers once its promise resolves
 *   (read-your-writes, whatever index answers);
 * - stored trajectories read back exactly as they were added;
 * - transition ids are positive integers, increasing in commit order within one writer.
 */
export interface ReplayBuffer {
  /** Where the buffer lives: a file, `:memory:`, or a URL without its password. */
  readonly path: string;
  /** How transitions are embedded for retrieval. */
  readonly encoder: KeyEncoder;
  /** Adds trajectories in one transaction: all of them or, on any error, none. */
  add(trajectories: readonly Trajectory[], options?: AddOptions): Promise<AddResult>;
  /**
   * Adds every trajectory a source yields (a JSONL file read line by line, say), all or none —
   * the source's own errors included — without holding the source in memory.
   */
  addStream(source: AsyncIterable<Trajectory>): Promise<AddResult>;
  /** The `k` stored transitions most similar to `key` that pass `filter`, most similar first. */
  retrieve(key: TransitionKey, k: number, filter?: RetrieveFilter): Promise<RetrievedTransition[]>;
  /** `n` transitions drawn with replacement, with a real/synthetic mix and recency weighting. */
  sample(n: number, options?: SampleOptions): Promise<StoredTransition[]>;
  /** What the buffer holds now. */
  stats(): Promise<BufferStats>;
  /** Every stored trajectory passing `filter`, oldest first, rebuilt exactly as it was added. */
  trajectories(filter?: TrajectoryFilter): AsyncIterable<Trajectory>;
  /** Ids of the stored trajectories passing `filter`, oldest first. */
  trajectoryIds(filter?: TrajectoryFilter): Promise<string[]>;
  /** A stored trajectory's transitions with their ids, in step order; none for an unknown id. */
  trajectoryTransitions(trajectoryId: string): Promise<StoredTransition[]>;
  /**
   * Stores a teacher LLM's explanation of why a transition happened (the experience model's SFT
   * target) as `info.teacherReasoning`, replacing any earlier one; a RangeError for an unknown id.
   */
  setTeacherReasoning(transitionId: number, reasoning: string): Promise<void>;
  /** Waits for pending adds, saves what the buffer keeps beside its data, and closes. Idempotent. */
  close(): Promise<void>;
}
