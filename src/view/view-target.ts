import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';

/** What `dreamgym view PATH` shows, by what PATH is. */
export type ViewTarget =
  /** A run folder (`dreamgym run`, `dreamgym demo`): dashboard, and the episodes of its buffer. */
  | { kind: 'run'; dir: string; buffer: string }
  /** A replay buffer's SQLite file. */
  | { kind: 'buffer'; path: string }
  /** A trajectory JSONL file. */
  | { kind: 'trajectories'; path: string };

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * Tells a run folder, a replay buffer and a trajectory file apart: a directory is a run folder
 * (its buffer `buffer.db`, else the first `buffer-*.db`, possibly not written yet); a file is a
 * buffer when it starts with SQLite's header and a trajectory file otherwise. A missing path is a
 * {@link ConfigError} naming the three things it could be.
 */
export function viewTarget(path: string): ViewTarget {
  if (!existsSync(path)) {
    throw new ConfigError(
      `${path} does not exist: pass a run folder (dreamgym run --out DIR), a replay buffer (.db) or a trajectory file (.jsonl).`,
    );
  }
  if (statSync(path).isDirectory()) {
    const seeded = readdirSync(path)
      .filter((f) => /^buffer-.*\.db$/.test(f))
      .sort();
    const buffer =
      existsSync(join(path, 'buffer.db')) || seeded.length === 0
        ? 'buffer.db'
        : (seeded[0] as string);
    return { kind: 'run', dir: path, buffer: join(path, buffer) };
  }
  return startsWithSqliteHeader(path) ? { kind: 'buffer', path } : { kind: 'trajectories', path };
}

function startsWithSqliteHeader(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return read === head.length && head.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}
