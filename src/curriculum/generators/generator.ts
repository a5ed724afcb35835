/**
 * The task-generator contract: variations of one parent task. Generators return what they could
 * make and say what went wrong in `warnings`; a failed LLM call or an unusable answer yields fewer
 * tasks, never an exception in the training loop.
 */
import type { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskPool } from '../task-pool.ts';

/**
 * What a generator may see of the pool: its tasks (for examples and known values) and its
 * duplicates check, both as the curriculum last read the pool (an add still refuses duplicates
 * that other processes added since).
 */
export type PoolView = Pick<TaskPool, 'tasks' | 'isDuplicate'>;

/** What a generator is asked: which tasks to vary, how many variations, and the pool so far. */
export interface GenerationRequest {
  parent: Task;
  /** At most this many variations. */
  count: number;
  pool: PoolView;
  rng: Rng;
}

/** What a generator made: the new tasks, and warnings for requests it could not serve. */
export interface GenerationResult {
  /** New tasks (`origin: 'generated'`, `parentId` set), none a duplicate of a pooled task or of each other. */
  tasks: Task[];
  warnings: string[];
}

/**
 * Makes harder or different variations of tasks for the curriculum (an LLM, or offline mutators).
 */
export interface TaskGenerator {
  readonly name: string;
  /** Variations of the requested tasks, and what went wrong with the rest. */
  generate(request: GenerationRequest): Promise<GenerationResult>;
}
