/**
 * The curriculum's task pool: seed tasks, generated variations with their parents, the rewards of
 * every task's rollout groups, and the batches handed out to index-less resets. Two
 * implementations keep the same contract (`conformance.ts` runs against both): a SQLite file for
 * one process (`sqlite-task-pool.ts`) and a PostgreSQL database shared by every server instance
 * (`postgres-task-pool.ts`).
 *
 * Tasks never change once added, so each handle mirrors them in memory: the reads that take no
 * promise (`get`, `tasks`, `isDuplicate`, `size`) answer from the mirror as of the handle's last
 * `refresh()` (or its own adds); everything else asks the database.
 */
import type { Task } from '../core/types.ts';

/** An outcome reward at or above this is a success: WebShop's full score, a household goal reached. */
export const SUCCESS_REWARD = 1;

/** A task in the pool: whether a real env can build it, and the iteration that generated it. */
export interface PooledTask {
  task: Task;
  /** A real env can build it (it has a spec its env accepts); otherwise it is synthetic-only. */
  realizable: boolean;
  /** The iteration the curriculum generated it in; undefined for seed tasks. */
  createdIteration?: number;
}

/** Which pooled tasks to list. */
export interface PoolFilter {
  env?: string;
  origin?: Task['origin'];
  realizable?: boolean;
  /** Only tasks that were in the pool before this iteration began (seed tasks always were). */
  before?: number;
}

/** Reward statistics of a set of rollouts of one task. */
export interface RewardStats {
  attempts: number;
  meanReward: number;
  /** V: the mean over the rollouts of (r_i − r̄)². */
  variance: number;
  successes: number;
}

/** One task's rollout group in one iteration. */
export interface GroupStats extends RewardStats {
  iteration: number;
  taskId: string;
}

/** What the pool and its rollouts looked like after one iteration. */
export interface PoolIterationStats {
  iteration: number;
  /** Tasks in the pool, this iteration's generated ones included. */
  poolSize: number;
  /** Generated tasks in the pool, this iteration's included. */
  generatedTasks: number;
  /** Tasks generated in this iteration. */
  newTasks: number;
  /** Tasks rolled out in this iteration. */
  tasksPlayed: number;
  /** Share of played tasks solved sometimes but not always (0 < successes < attempts). */
  informativeShare: number;
  /** Mean over played tasks of their group's reward variance V. */
  meanVariance: number;
  meanReward: number;
}

/** One reset's share of a batch: the task, and the iteration and slot it was handed out in. */
export interface HandOut {
  iteration: number;
  task: Task;
  /** The reset's place in the batch: slot s gets task ⌊s / groupSize⌋. */
  slot: number;
}

/** Makes the tasks of a new batch for `iteration` (a curriculum's `next`); all must be pooled. */
export type BatchMaker = (iteration: number) => Promise<readonly Task[]>;

/**
 * The curriculum's task pool, wherever it lives. Every method that writes is atomic, and safe
 * when many processes share the pool: a generated task is added once however many add it, a
 * batch slot goes to one reset, and concurrent rewards all count.
 */
export interface TaskPool {
  /** Where it lives: a file path, `:memory:`, or a URL without its password. */
  readonly location: string;
  /** Tasks this handle knows of (see the module doc). */
  readonly size: number;
  /** The pooled task with this id, if this handle knows of it. */
  get(id: string): PooledTask | undefined;
  /** Pooled tasks in the order they were added. */
  tasks(filter?: PoolFilter): PooledTask[];
  /**
   * Whether the pool holds this task: the same id or identity (see `task-identity.ts`), or, for
   * a task without a spec, any task of its env worded the same.
   */
  isDuplicate(task: Task): boolean;
  /** Takes in the tasks other handles added since. */
  refresh(): Promise<void>;
  /**
   * Adds tasks in one transaction and returns those added. Ids already in the pool are skipped,
   * and so are generated tasks that duplicate a pooled one (or an earlier one of the list); seed
   * tasks are taken as given. A task whose parent is not pooled fails the whole add.
   */
  add(tasks: readonly Task[], createdIteration?: number): Promise<Task[]>;
  /**
   * Records outcome rewards of rollouts in `iteration`: each task's rewards are one group. A group
   * recorded again for the same iteration replaces the old one, so re-running an iteration (a
   * resumed run after a crash mid-iteration) does not count its rollouts twice.
   */
  recordGroups(
    iteration: number,
    episodes: ReadonlyArray<{ taskId: string; reward: number }>,
  ): Promise<void>;
  /**
   * Adds one episode's reward to its task's group of `iteration`: how served episodes, finishing
   * one by one on any server instance, make up their groups.
   */
  addToGroup(iteration: number, taskId: string, reward: number): Promise<void>;
  /** The rollout groups of one iteration, by task id. */
  groups(iteration: number): Promise<GroupStats[]>;
  /** The last iteration before `before` with recorded rollouts, if any. */
  lastRecordedIteration(before: number): Promise<number | undefined>;
  /** The last iteration the pool has seen: of a batch, a recorded group or a generated task. */
  lastIteration(): Promise<number | undefined>;
  /** A task's rewards over all its rollouts so far. */
  taskStats(taskId: string): Promise<RewardStats>;
  /** One entry per iteration with recorded rollouts, in order. */
  iterationStats(): Promise<PoolIterationStats[]>;
  /** The next slot of the current batch, or undefined when it is all handed out (or none exists). */
  handOut(): Promise<HandOut | undefined>;
  /**
   * Makes the next batch unless the current one still has slots (another handle may have just
   * made it). Under a lock that every handle of the pool takes, calls `make` with the iteration
   * after {@link lastIteration} and stores its tasks, each for `groupSize` consecutive slots.
   * Resolves to the iteration of the batch now current.
   */
  startBatch(groupSize: number, make: BatchMaker): Promise<number>;
  /** Closes the database (waiting for what is in flight). */
  close(): Promise<void>;
}
