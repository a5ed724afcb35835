import { redactUrl } from '../replay/buffer-errors.ts';
import { TaskPoolLocationError } from './pool-errors.ts';
import { PostgresTaskPool } from './postgres-task-pool.ts';
import { SqliteTaskPool } from './sqlite-task-pool.ts';
import type { TaskPool as TaskPoolContract } from './task-pool.ts';

/** Where a task pool lives, and how to connect to it. */
export interface OpenTaskPoolOptions {
  /**
   * A SQLite file (created if missing), `:memory:` (the default), or a PostgreSQL URL
   * (`postgres://user@host/db`, whose tables are created when missing): the one to share between
   * server instances.
   */
  location?: string;
  /** PostgreSQL: connections this process keeps. Default 4. */
  poolSize?: number;
}

/** Matches the URLs of the PostgreSQL backend. */
const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** Matches `scheme://…`: a URL, which a file path never is. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Opens (or creates) the task pool at a location; any URL but PostgreSQL's is refused. */
async function open(options: OpenTaskPoolOptions = {}): Promise<TaskPoolContract> {
  const location = options.location ?? ':memory:';
  if (POSTGRES_URL.test(location)) {
    return PostgresTaskPool.open({
      url: location,
      ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
    });
  }
  if (URL_LIKE.test(location)) {
    const scheme = location.slice(0, location.indexOf(':'));
    throw new TaskPoolLocationError(
      `${scheme}:// task pools are not supported (${redactUrl(location)}); pass a SQLite file path (e.g. runs/x/tasks.db), :memory:, or a PostgreSQL URL (postgres://user@host/db).`,
    );
  }
  return SqliteTaskPool.open({ path: location });
}

/** The task pool contract (see `task-pool.ts`). */
export type TaskPool = TaskPoolContract;

/** Opens task pools by location: `TaskPool.open({ location })`. */
export const TaskPool = {
  /** Opens (or creates) the pool at a location: a SQLite file, `:memory:` or `postgres://…`. */
  open,
};
