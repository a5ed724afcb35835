import { DreamGymError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import type { BranchPoint, ResetOptions, TaskSource, TaskSplit } from '../envs/env.ts';
import { RequestError } from './errors.ts';

/**
 * The largest task index served. Sources only list a split's first N tasks, so index i costs
 * making i tasks once (about 2 s for 10,000 household scenes); AgentGym-RL's WebShop ids stop at
 * 6909.
 */
export const MAX_TASK_INDEX = 9_999;

/** What a client asked a reset for; each protocol names the task index its own way. */
export interface ResetChoice {
  /** Index of the task in the served split. */
  taskIndex?: number;
  /** The request field that carried `taskIndex`, for error messages (`session_id`, `game`, …). */
  field?: string;
  seed?: number;
  /** A recorded real state to start from (a served synthetic env only). */
  from?: BranchPoint;
}

/**
 * Turns reset requests into the env's reset options. A task index picks that task of the served
 * split (AgentGym's `session_id`/`game`); without one, the task provider (e.g. a curriculum)
 * picks, or else the env draws a task from a seed: the client's, or a counter, so a server
 * replays the same task sequence for the same requests.
 */
export class TaskPicker {
  private tasks: Task[] = [];
  private nextSeed = 0;

  constructor(
    private readonly source: TaskSource,
    readonly split: TaskSplit,
    private readonly taskProvider?: () => Task | Promise<Task>,
    /** Whether the served env can start from a recorded real state (a synthetic env can). */
    private readonly branches = false,
  ) {}

  async resetOptions(choice: ResetChoice): Promise<ResetOptions> {
    if (choice.from) {
      if (!this.branches) {
        throw new RequestError(
          "this server's env is a real one, which cannot start from a recorded state: drop from, or serve synthetic:FAMILY to branch from the buffer's real episodes.",
        );
      }
      if (choice.taskIndex !== undefined) {
        throw new RequestError(
          `a reset from a recorded state takes that episode's task: drop ${choice.field ?? 'task_index'} or from.`,
        );
      }
      return { from: choice.from, seed: choice.seed ?? this.nextSeed++ };
    }
    const seed = choice.seed ?? this.nextSeed++;
    if (choice.taskIndex !== undefined) {
      return { task: this.taskAt(choice.taskIndex, choice.field ?? 'task_index'), seed };
    }
    if (this.taskProvider) return { task: await this.taskProvider(), seed };
    return { seed };
  }

  /**
   * Task `index` of the split. The split's default list is made once; an index past it grows the
   * list (doubling, so a sweep over indices stays linear) for sources whose splits are
   * open-ended, such as generated goals, up to {@link MAX_TASK_INDEX}.
   */
  private taskAt(index: number, field: string): Task {
    if (index > MAX_TASK_INDEX) {
      throw new RequestError(
        `${field} ${index} is past the ${MAX_TASK_INDEX + 1} tasks a server indexes; use 0–${MAX_TASK_INDEX}.`,
      );
    }
    if (this.tasks.length === 0) this.tasks = this.source.tasks(this.split);
    if (index >= this.tasks.length) this.tasks = this.grown(index, field);
    return this.tasks[index] as Task;
  }

  private grown(index: number, field: string): Task[] {
    const doubled = Math.min(MAX_TASK_INDEX + 1, Math.max(index + 1, 2 * this.tasks.length));
    try {
      return this.source.tasks(this.split, doubled);
    } catch {
      // A split of fixed size may hold `index` but not `doubled` tasks: ask for just enough.
    }
    try {
      return this.source.tasks(this.split, index + 1);
    } catch (error) {
      if (!(error instanceof DreamGymError)) throw error;
      throw new RequestError(
        `${field} ${index} is not a task of the ${this.split} split: ${error.message}`,
      );
    }
  }
}
