/**
 * The curriculum's task pool: seed tasks, generated variations with their parents, and the
 * rewards of every task's rollout groups, in one SQLite file (`<run>/tasks.db` beside the replay
 * buffer's, or `:memory:`). Tasks never change once added, so they are also held in memory;
 * reward sums live only in the database.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import { checkPoolVersion, migratePool } from './pool-schema.ts';
import { isRealizable } from './realizable.ts';
import { normalizeInstruction, taskIdentity } from './task-identity.ts';

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

/** Where the pool lives: a SQLite file, or memory when no path is given. */
export interface TaskPoolOptions {
  /** Database file; `:memory:` (the default) for a throw-away pool. */
  path?: string;
  /**
   * Open an existing pool for reading only (a viewer beside a live run): nothing is created,
   * migrated or written; the methods that write fail.
   */
  readonly?: boolean;
}

interface SumsRow {
  attempts: number;
  reward_sum: number;
  reward_square_sum: number;
  successes: number;
}

/**
 * The curriculum's task pool in SQLite: seed and generated tasks with the rewards of their
 * episodes.
 */
export class TaskPool {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly entries = new Map<string, PooledTask>();
  private readonly identities = new Set<string>();
  /** `env|normalised instruction` of every task: a task without a spec must not repeat one. */
  private readonly instructions = new Set<string>();

  private constructor(path: string, readonly = false) {
    this.path = path;
    if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, readonly ? { readonly: true, fileMustExist: true } : {});
    try {
      if (readonly) checkPoolVersion(this.db, path);
      else {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('foreign_keys = ON');
        migratePool(this.db, path);
      }
    } catch (error) {
      this.db.close();
      throw error;
    }
    const rows = this.db
      .prepare('SELECT json, realizable, created_iteration FROM tasks ORDER BY seq')
      .all() as Array<{ json: string; realizable: number; created_iteration: number | null }>;
    for (const row of rows) {
      const entry: PooledTask = {
        task: JSON.parse(row.json) as Task,
        realizable: !!row.realizable,
      };
      if (row.created_iteration !== null) entry.createdIteration = row.created_iteration;
      this.remember(entry);
    }
  }

  /** Opens (or creates) a pool. */
  static open(options: TaskPoolOptions = {}): TaskPool {
    return new TaskPool(options.path ?? ':memory:', options.readonly);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The pooled task with this id, if any. */
  get(id: string): PooledTask | undefined {
    return this.entries.get(id);
  }

  /** Pooled tasks in the order they were added. */
  tasks(filter: PoolFilter = {}): PooledTask[] {
    return [...this.entries.values()].filter(
      (e) =>
        (filter.env === undefined || e.task.env === filter.env) &&
        (filter.origin === undefined || e.task.origin === filter.origin) &&
        (filter.realizable === undefined || e.realizable === filter.realizable) &&
        (filter.before === undefined ||
          e.createdIteration === undefined ||
          e.createdIteration < filter.before),
    );
  }

  /**
   * Whether the pool already holds this task: the same id or identity (see `task-identity.ts`),
   * or, for a task without a spec, any task of its env worded the same.
   */
  isDuplicate(task: Task): boolean {
    return (
      this.entries.has(task.id) ||
      this.identities.has(taskIdentity(task)) ||
      (task.spec === undefined && this.instructions.has(instructionKey(task)))
    );
  }

  /**
   * Adds tasks in one transaction and returns those added. Ids already in the pool are skipped,
   * and so are generated tasks that duplicate a pooled one; seed tasks are taken as given.
   */
  add(tasks: readonly Task[], createdIteration?: number): Task[] {
    const insert = this.db.prepare(
      'INSERT INTO tasks (id, env, origin, parent_id, realizable, created_iteration, json) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const added: Task[] = [];
    this.db.transaction(() => {
      for (const task of tasks) {
        if (this.entries.has(task.id) || (task.origin === 'generated' && this.isDuplicate(task))) {
          continue;
        }
        if (task.parentId !== undefined && !this.entries.has(task.parentId)) {
          throw new ConfigError(
            `task ${task.id} names parent ${task.parentId}, which is not in the pool; add the parent first.`,
          );
        }
        const entry: PooledTask = { task, realizable: isRealizable(task) };
        if (createdIteration !== undefined) entry.createdIteration = createdIteration;
        insert.run(
          task.id,
          task.env,
          task.origin,
          task.parentId ?? null,
          entry.realizable ? 1 : 0,
          createdIteration ?? null,
          JSON.stringify(task),
        );
        this.remember(entry);
        added.push(task);
      }
    })();
    return added;
  }

  /**
   * Records outcome rewards of rollouts in `iteration`: each task's rewards are one group. A group
   * recorded again for the same iteration replaces the old one, so re-running an iteration (a
   * resumed run after a crash mid-iteration) does not count its rollouts twice.
   */
  recordGroups(
    iteration: number,
    episodes: ReadonlyArray<{ taskId: string; reward: number }>,
  ): void {
    const groups = new Map<string, number[]>();
    for (const { taskId, reward } of episodes) {
      if (!this.entries.has(taskId)) {
        throw new ConfigError(
          `rollouts of task ${taskId}, which is not in the task pool: record only tasks the curriculum handed out.`,
        );
      }
      groups.set(taskId, [...(groups.get(taskId) ?? []), reward]);
    }
    const upsert = this.db.prepare(`
      INSERT OR REPLACE INTO rollout_groups
        (iteration, task_id, attempts, reward_sum, reward_square_sum, successes)
      VALUES (?, ?, ?, ?, ?, ?)`);
    this.db.transaction(() => {
      for (const [taskId, rewards] of groups) {
        upsert.run(
          iteration,
          taskId,
          rewards.length,
          rewards.reduce((s, r) => s + r, 0),
          rewards.reduce((s, r) => s + r * r, 0),
          rewards.filter((r) => r >= SUCCESS_REWARD).length,
        );
      }
    })();
  }

  /** The rollout groups of one iteration. */
  groups(iteration: number): GroupStats[] {
    const rows = this.db
      .prepare('SELECT * FROM rollout_groups WHERE iteration = ? ORDER BY task_id')
      .all(iteration) as Array<SumsRow & { task_id: string }>;
    return rows.map((row) => ({ iteration, taskId: row.task_id, ...rewardStats(row) }));
  }

  /** The last iteration before `before` with recorded rollouts, if any. */
  lastRecordedIteration(before: number): number | undefined {
    const row = this.db
      .prepare('SELECT MAX(iteration) AS last FROM rollout_groups WHERE iteration < ?')
      .get(before) as { last: number | null };
    return row.last ?? undefined;
  }

  /** A task's rewards over all its rollouts so far. */
  taskStats(taskId: string): RewardStats {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(attempts), 0) AS attempts, COALESCE(SUM(reward_sum), 0) AS reward_sum,
           COALESCE(SUM(reward_square_sum), 0) AS reward_square_sum, COALESCE(SUM(successes), 0) AS successes
         FROM rollout_groups WHERE task_id = ?`,
      )
      .get(taskId) as SumsRow;
    return rewardStats(row);
  }

  /** One entry per iteration with recorded rollouts, in order. */
  iterationStats(): PoolIterationStats[] {
    const played = new Map<number, GroupStats[]>();
    const rows = this.db.prepare('SELECT * FROM rollout_groups ORDER BY iteration').all() as Array<
      SumsRow & { iteration: number; task_id: string }
    >;
    for (const row of rows) {
      const group = { iteration: row.iteration, taskId: row.task_id, ...rewardStats(row) };
      played.set(row.iteration, [...(played.get(row.iteration) ?? []), group]);
    }
    const created = [...this.entries.values()].map((e) => e.createdIteration);
    return [...played].map(([iteration, groups]) => {
      const attempts = groups.reduce((s, g) => s + g.attempts, 0);
      const generatedByThen = created.filter((c) => c !== undefined && c <= iteration).length;
      return {
        iteration,
        poolSize: created.filter((c) => c === undefined).length + generatedByThen,
        generatedTasks: generatedByThen,
        newTasks: created.filter((c) => c === iteration).length,
        tasksPlayed: groups.length,
        informativeShare:
          groups.filter((g) => g.successes > 0 && g.successes < g.attempts).length / groups.length,
        meanVariance: groups.reduce((s, g) => s + g.variance, 0) / groups.length,
        meanReward: groups.reduce((s, g) => s + g.meanReward * g.attempts, 0) / attempts,
      };
    });
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }

  private remember(entry: PooledTask): void {
    this.entries.set(entry.task.id, entry);
    this.identities.add(taskIdentity(entry.task));
    this.instructions.add(instructionKey(entry.task));
  }
}

function instructionKey(task: Task): string {
  return `${task.env}|${normalizeInstruction(task.instruction)}`;
}

function rewardStats(row: SumsRow): RewardStats {
  const mean = row.attempts > 0 ? row.reward_sum / row.attempts : 0;
  const variance =
    row.attempts > 0 ? Math.max(0, row.reward_square_sum / row.attempts - mean * mean) : 0;
  return { attempts: row.attempts, meanReward: mean, variance, successes: row.successes };
}
