import { ConfigError } from '../core/errors.ts';
import { finalReward, type Task, type Trajectory } from '../core/types.ts';
import type { TaskSchedule } from '../curriculum/schedule.ts';
import type { TaskPool } from '../curriculum/task-pool.ts';

/** How a {@link TaskFeed} hands out a schedule's tasks to remote trainers. */
export interface TaskFeedOptions {
  /** Picks each batch's tasks (a `Curriculum` over `pool`). */
  schedule: TaskSchedule;
  /** Where the schedule's state lives; finished episodes' rewards are filed here. */
  pool: TaskPool;
  /** Consecutive resets that get the same task: a trainer's GRPO group. Default 1. */
  groupSize?: number;
  /** Distinct tasks a batch (a curriculum iteration) holds. Default 16. */
  batchTasks?: number;
}

/**
 * Hands the resets that name no task their tasks from a schedule, a curriculum iteration at a
 * time: `groupSize` consecutive resets get the same task (a trainer's group), and each finished
 * episode's final reward is filed under the iteration and task it was handed out with, so the
 * curriculum's reward variance sees every group, however late its episodes finish. The
 * iteration count continues from the pool's own records, so a restarted server picks up where it
 * stopped.
 */
export class TaskFeed {
  private readonly groupSize: number;
  private readonly batchTasks: number;
  private iteration: number;
  /** Tasks still to hand out in this iteration, each as often as the group size says. */
  private queue: Task[] = [];
  /** Serialises `next`: a batch is fetched once however many resets wait for it. */
  private pending: Promise<unknown> = Promise.resolve();
  /** The iteration each task was last handed out in. */
  private readonly handedOut = new Map<string, number>();
  /** Final rewards filed so far, by iteration and task; only the last few iterations are kept. */
  private readonly rewards = new Map<number, Map<string, number[]>>();

  constructor(private readonly options: TaskFeedOptions) {
    this.groupSize = checkPositive(options.groupSize ?? 1, 'groupSize');
    this.batchTasks = checkPositive(options.batchTasks ?? 16, 'batchTasks');
    const pool = options.pool;
    const created = pool.tasks().map((e) => e.createdIteration ?? -1);
    const recorded = pool.lastRecordedIteration(Number.MAX_SAFE_INTEGER) ?? -1;
    this.iteration = Math.max(recorded, ...created) + 1;
  }

  /** The curriculum iteration whose batch comes next (after a restart: one past the pool's last). */
  get nextIteration(): number {
    return this.iteration;
  }

  /** The task of the next reset that names none. */
  next(): Promise<Task> {
    const run = this.pending.then(async () => {
      if (this.queue.length === 0) {
        const batch = await this.options.schedule.next(this.iteration, this.batchTasks);
        if (batch.length === 0) throw new Error('the curriculum has no tasks to hand out.');
        for (const task of batch) this.handedOut.set(task.id, this.iteration);
        this.queue = batch.flatMap((task) => Array<Task>(this.groupSize).fill(task));
        this.rewards.set(this.iteration, new Map());
        this.rewards.delete(this.iteration - KEPT_ITERATIONS);
        this.iteration++;
      }
      return this.queue.shift() as Task;
    });
    this.pending = run.catch(() => undefined);
    return run;
  }

  /**
   * Files an episode's reward — its final reward, or `reward` (an abandoned episode's 0) — under
   * the iteration its task was last handed out in. Episodes of tasks this feed did not hand out (a
   * reset by task index), or handed out more than a few iterations ago, are not filed. Returns
   * whether it was filed.
   */
  record(trajectory: Trajectory, reward = outcome(trajectory)): boolean {
    const iteration = this.handedOut.get(trajectory.task.id);
    const groups = iteration === undefined ? undefined : this.rewards.get(iteration);
    if (iteration === undefined || !groups) return false;
    const rewards = [...(groups.get(trajectory.task.id) ?? []), reward];
    groups.set(trajectory.task.id, rewards);
    // The pool replaces a group's row, so the group is filed whole each time.
    this.options.pool.recordGroups(
      iteration,
      rewards.map((reward) => ({ taskId: trajectory.task.id, reward })),
    );
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

/** Iterations whose late episodes are still filed. */
const KEPT_ITERATIONS = 8;

function checkPositive(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new ConfigError(`${name} must be a positive integer, got ${n}.`);
  }
  return n;
}
