/**
 * The task pool in one SQLite file (`<run>/tasks.db` beside the replay buffer's, or `:memory:`):
 * for one process, which may be a `serve --workers` primary handing tasks to its workers. Other
 * processes may read it (`dreamgym view`) and even write it (each write is an immediate
 * transaction), but a pool shared by server instances belongs in PostgreSQL: here the lock that
 * keeps two handles from making the same batch at once is only in this process.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Task } from '../core/types.ts';
import { type BatchRow, batchIds, slotTask } from './pool-batches.ts';
import { PoolMirror, type TaskRow } from './pool-mirror.ts';
import { checkPoolVersion, migratePool } from './pool-schema.ts';
import {
  groupRewards,
  iterationStats,
  type RewardSums,
  rewardStats,
  sumsOf,
  unknownTaskError,
} from './pool-stats.ts';
import type {
  BatchMaker,
  GroupStats,
  HandOut,
  PooledTask,
  PoolFilter,
  PoolIterationStats,
  RewardStats,
  TaskPool,
} from './task-pool.ts';

/** Where the pool lives: a SQLite file, or memory when no path is given. */
export interface SqliteTaskPoolOptions {
  /** Database file; `:memory:` (the default) for a throw-away pool. */
  path?: string;
  /**
   * Open an existing pool for reading only (a viewer beside a live run): nothing is created,
   * migrated or written; the methods that write fail.
   */
  readonly?: boolean;
}

const TASK_COLUMNS = 'seq, json, realizable, created_iteration';

/**
 * The batch lock of every pool file open in this process, by path: handles of one file take
 * turns making batches. A `:memory:` pool is its handle's alone.
 */
const batchLocks = new Map<string, Promise<unknown>>();

const UPSERT_GROUP = `
  INSERT INTO rollout_groups (iteration, task_id, attempts, reward_sum, reward_square_sum, successes)
  VALUES (@iteration, @taskId, @attempts, @reward_sum, @reward_square_sum, @successes)`;

/** The curriculum's task pool in SQLite (see the module doc). */
export class SqliteTaskPool implements TaskPool {
  readonly location: string;
  private readonly db: Database.Database;
  private readonly mirror = new PoolMirror();
  /** Key of this pool's entry in {@link batchLocks}. */
  private readonly lockKey: string;

  private constructor(path: string, readonly: boolean) {
    this.location = path;
    this.lockKey = path === ':memory:' ? `:memory:${Math.random()}` : resolve(path);
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
    this.catchUp();
  }

  /** Opens (or creates) a pool; synchronous, as SQLite opens. */
  static open(options: SqliteTaskPoolOptions = {}): SqliteTaskPool {
    return new SqliteTaskPool(options.path ?? ':memory:', options.readonly ?? false);
  }

  get size(): number {
    return this.mirror.size;
  }

  get(id: string): PooledTask | undefined {
    return this.mirror.get(id);
  }

  tasks(filter: PoolFilter = {}): PooledTask[] {
    return this.mirror.tasks(filter);
  }

  isDuplicate(task: Task): boolean {
    return this.mirror.isDuplicate(task);
  }

  async refresh(): Promise<void> {
    this.catchUp();
  }

  async add(tasks: readonly Task[], createdIteration?: number): Promise<Task[]> {
    const insert = this.db.prepare(
      'INSERT INTO tasks (id, env, origin, parent_id, realizable, created_iteration, json) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq',
    );
    const stored = this.db
      .transaction(() => {
        this.catchUp();
        return this.mirror.admit(tasks, createdIteration).map((entry) => {
          const { task } = entry;
          const { seq } = insert.get(
            task.id,
            task.env,
            task.origin,
            task.parentId ?? null,
            entry.realizable ? 1 : 0,
            createdIteration ?? null,
            JSON.stringify(task),
          ) as { seq: number };
          return { entry, seq };
        });
      })
      .immediate();
    for (const { entry, seq } of stored) {
      this.mirror.remember(entry);
      this.mirror.upTo = Math.max(this.mirror.upTo, seq);
    }
    return stored.map(({ entry }) => entry.task);
  }

  async recordGroups(
    iteration: number,
    episodes: ReadonlyArray<{ taskId: string; reward: number }>,
  ): Promise<void> {
    const groups = groupRewards(episodes);
    this.requireKnown([...groups.keys()]);
    const upsert = this.db.prepare(`${UPSERT_GROUP}
      ON CONFLICT (iteration, task_id) DO UPDATE SET attempts = excluded.attempts,
        reward_sum = excluded.reward_sum, reward_square_sum = excluded.reward_square_sum,
        successes = excluded.successes`);
    this.db.transaction(() => {
      for (const [taskId, rewards] of groups) upsert.run({ iteration, taskId, ...sumsOf(rewards) });
    })();
  }

  async addToGroup(iteration: number, taskId: string, reward: number): Promise<void> {
    groupRewards([{ taskId, reward }]);
    this.requireKnown([taskId]);
    this.db
      .prepare(`${UPSERT_GROUP}
        ON CONFLICT (iteration, task_id) DO UPDATE SET attempts = attempts + excluded.attempts,
          reward_sum = reward_sum + excluded.reward_sum,
          reward_square_sum = reward_square_sum + excluded.reward_square_sum,
          successes = successes + excluded.successes`)
      .run({ iteration, taskId, ...sumsOf([reward]) });
  }

  async groups(iteration: number): Promise<GroupStats[]> {
    return this.groupRows('WHERE iteration = ?', [iteration]);
  }

  async lastRecordedIteration(before: number): Promise<number | undefined> {
    const row = this.db
      .prepare('SELECT MAX(iteration) AS last FROM rollout_groups WHERE iteration < ?')
      .get(before) as { last: number | null };
    return row.last ?? undefined;
  }

  async lastIteration(): Promise<number | undefined> {
    const row = this.db
      .prepare(
        `SELECT (SELECT MAX(iteration) FROM batches) AS batch,
           (SELECT MAX(iteration) FROM rollout_groups) AS recorded,
           (SELECT MAX(created_iteration) FROM tasks) AS created`,
      )
      .get() as Record<string, number | null>;
    const seen = Object.values(row).filter((v): v is number => v !== null);
    return seen.length > 0 ? Math.max(...seen) : undefined;
  }

  async taskStats(taskId: string): Promise<RewardStats> {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(attempts), 0) AS attempts, COALESCE(SUM(reward_sum), 0) AS reward_sum,
           COALESCE(SUM(reward_square_sum), 0) AS reward_square_sum, COALESCE(SUM(successes), 0) AS successes
         FROM rollout_groups WHERE task_id = ?`,
      )
      .get(taskId) as RewardSums;
    return rewardStats(row);
  }

  async iterationStats(): Promise<PoolIterationStats[]> {
    this.catchUp();
    return this.iterationStatsNow();
  }

  async handOut(): Promise<HandOut | undefined> {
    const row = this.db
      .prepare(
        `UPDATE batches SET handed_out = handed_out + 1
         WHERE iteration = (SELECT MAX(iteration) FROM batches) AND handed_out < slots
         RETURNING iteration, handed_out - 1 AS slot, group_size, task_ids`,
      )
      .get() as BatchRow | undefined;
    if (!row) return undefined;
    const id = slotTask(row);
    if (!this.mirror.get(id)) this.catchUp();
    return { iteration: row.iteration, slot: row.slot, task: this.mirror.get(id)?.task as Task };
  }

  startBatch(groupSize: number, make: BatchMaker): Promise<number> {
    const run = (batchLocks.get(this.lockKey) ?? Promise.resolve()).then(async () => {
      const current = this.db
        .prepare('SELECT iteration, slots, handed_out FROM batches ORDER BY iteration DESC LIMIT 1')
        .get() as { iteration: number; slots: number; handed_out: number } | undefined;
      if (current && current.handed_out < current.slots) return current.iteration;
      const iteration = ((await this.lastIteration()) ?? -1) + 1;
      const tasks = await make(iteration);
      if (tasks.some((t) => !this.mirror.get(t.id))) this.catchUp();
      const ids = batchIds(tasks, (id) => this.mirror.get(id) !== undefined);
      this.db
        .prepare(
          'INSERT INTO batches (iteration, group_size, task_ids, slots) VALUES (?, ?, ?, ?) ON CONFLICT (iteration) DO NOTHING',
        )
        .run(iteration, groupSize, JSON.stringify(ids), ids.length * groupSize);
      return iteration;
    });
    const settled = run.catch(() => undefined);
    batchLocks.set(this.lockKey, settled);
    void settled.then(() => {
      if (batchLocks.get(this.lockKey) === settled) batchLocks.delete(this.lockKey);
    });
    return run;
  }

  async close(): Promise<void> {
    await batchLocks.get(this.lockKey);
    if (this.db.open) this.db.close();
  }

  /**
   * A pool file's statistics per iteration without a promise, for readers that cannot wait (the
   * run viewer): opened read-only, read, closed.
   */
  static readIterationStats(path: string): PoolIterationStats[] {
    const pool = new SqliteTaskPool(path, true);
    try {
      return pool.iterationStatsNow();
    } finally {
      pool.db.close();
    }
  }

  private iterationStatsNow(): PoolIterationStats[] {
    return iterationStats(this.groupRows('', []), this.mirror.createdIterations());
  }

  private groupRows(where: string, params: unknown[]): GroupStats[] {
    const rows = this.db
      .prepare(`SELECT * FROM rollout_groups ${where} ORDER BY iteration, task_id`)
      .all(...params) as Array<RewardSums & { iteration: number; task_id: string }>;
    return rows.map((row) => ({
      iteration: row.iteration,
      taskId: row.task_id,
      ...rewardStats(row),
    }));
  }

  /** Takes in the rows other handles added since the last look. */
  private catchUp(): void {
    const rows = this.db
      .prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE seq > ? ORDER BY seq`)
      .all(this.mirror.upTo) as TaskRow[];
    this.mirror.takeIn(rows);
  }

  /** Fails unless every id is a pooled task (looking again before failing). */
  private requireKnown(taskIds: readonly string[]): void {
    if (taskIds.some((id) => !this.mirror.get(id))) this.catchUp();
    const unknown = taskIds.find((id) => !this.mirror.get(id));
    if (unknown !== undefined) throw unknownTaskError(unknown);
  }
}
