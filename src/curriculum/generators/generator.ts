/**
 * The task-generator contract: variations of one parent task. Generators return what they could
 * make and say what went wrong in `warnings`; a failed LLM call or an unusable answer yields fewer
 * tasks, never an exception in the training loop.
 */
import type { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskPool } from '../task-pool.ts';

/** What a generator may see of the pool: its tasks (for examples and known values) and its duplicates check. */
export type PoolView = Pick<TaskPool, 'tasks' | 'isDuplicate'>;

export interface GenerationRequest {
  parent: Task;
  /** At most this many variations. */
  count: number;
  pool: PoolView;
  rng: Rng;
}

export interface GenerationResult {
  /** New tasks (`origin: 'generated'`, `parentId` set), none a duplicate of a pooled task or of each other. */
  tasks: Task[];
  warnings: string[];
}

export interface TaskGenerator {
  readonly name: string;
  generate(request: GenerationRequest): Promise<GenerationResult>;
}
