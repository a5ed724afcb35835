import { ConfigError } from '../core/errors.ts';
import { finalReward, type Task, type Trajectory } from '../core/types.ts';
import type { TaskSchedule } from '../curriculum/schedule.ts';
import type { TaskPool } from '../curriculum/task-pool.ts';

/** How a {@link TaskFeed} hands out a schedule's tasks to remote trainers. */
export interface TaskFeedOptions {
  /** Picks each batch's tasks (a `Curriculum` over `pool`). */
  schedule: TaskSchedule;
  /** Where the schedule's state lives, the batches handed out included; rewards are filed here. */
  pool: TaskPool;
  /** Consecutive resets that get the same task: a trainer's GRPO group. Default 1. */
  groupSize?: number;
  /** Distinct tasks a batch (a curriculum iteration) holds. Default 16. */
  batchTasks?: number;
}

/**
 * Hands the resets that name no task their tasks from a schedule, a curriculum iteration at a
 * time: `groupSize` consecutive resets get the same task (a trainer's group), and each finished
 * episode's final reward is added to the group of the iteration and task it was handed out with,
 * so the curriculum's reward variance sees every group, however late its episodes finish.
 *
 * The batches and which of their slots are taken live in the pool, not here: server instances
 * whose feeds share a pool (PostgreSQL) hand out one sequence of groups between them, a group's
 * resets spread over whichever instances serve them, and a restarted server continues the
 * batch it was in.
 */
export class TaskFeed {
  private readonly groupSize: number;
  private readonly batchTasks: number;
  /** Serialises `next`: this process waits for a new batch once however many resets want one. */
  private pending: Promise<unknown> = Promise.resolve();
  /** The iteration each task was last handed out in by this feed. */
  private readonly handedOut = new Map<string, number>();

  constructor(private readonly options: TaskFeedOptions) {
    this.groupSize = checkPositive(options.groupSize ?? 1, 'groupSize');
    this.batchTasks = checkPositive(options.batchTasks ?? 16, 'batchTasks');
  }

  /** The curriculum iteration whose batch comes next: one past the last the pool has seen. */
  async nextIteration(): Promise<number> {
    return ((await this.options.pool.lastIteration()) ?? -1) + 1;
  }

  /** The task of the next reset that names none. */
  next(): Promise<Task> {
    const { pool, schedule } = this.options;
    const run = this.pending.then(async () => {
      for (;;) {
        const slot = await pool.handOut();
        if (slot) {
          this.handedOut.set(slot.task.id, slot.iteration);
          return slot.task;
        }
        await pool.startBatch(this.groupSize, async (iteration) =>
          schedule.next(iteration, this.batchTasks),
        );
      }
    });
    this.pending = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds an episode's reward — its final reward, or `reward` (an abandoned episode's 0) — to its
   * group of the iteration its task was last handed out in by this feed. Episodes of tasks this
   * feed did not hand out (a reset by task index) are not filed. Resolves to whether it was filed.
   */
  async record(trajectory: Trajectory, reward = outcome(trajectory)): Promise<boolean> {
    const iteration = this.handedOut.get(trajectory.task.id);
    if (iteration === undefined) return false;
    await this.options.pool.addToGroup(iteration, trajectory.task.id, reward);
    return true;
  }
}

/**
 * An episode's reward for the curriculum: its final reward, or 0 for one its client abandoned
 * (how a `--workers` primary tells them apart in what a worker hands it).
 */
function outcome(trajectory: Trajectory): number {
  const last = trajectory.steps.at(-1);
  return !last || last.info?.truncatedBy === 'abandoned' ? 0 : finalReward(trajectory);
}

function checkPositive(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new ConfigError(`${name} must be a positive integer, got ${n}.`);
  }
  return n;
}
