import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { Provenance } from '../core/types.ts';

/** What a buffer holds: trajectories, transitions, distinct observations, success rate, counts by env, size, retrieval index and encoder. */
export interface BufferStats {
  trajectories: number;
  transitions: number;
  distinctObservations: number;
  successRate: number;
  byEnv: Record<
    string,
    Record<Provenance, { trajectories: number; transitions: number; successRate: number }>
  >;
  /** Database size on disk (0 for `:memory:`). */
  bytes: number;
  /**
   * How real demonstrations are retrieved: exact search, the in-process ANN (usearch) indexes, or
   * (PostgreSQL with the extension) pgvector's HNSW indexes inside the database.
   */
  retrieval: 'exact' | 'ann' | 'pgvector';
  /**
   * Why a PostgreSQL buffer retrieves with in-process indexes rather than pgvector (not
   * installed on the server, or this role may not create the extension); absent otherwise.
   */
  retrievalNote?: string;
  /**
   * Transitions in the ANN index of each provenance class (real, synthetic); null while a class
   * has none (below the threshold, or synthetic before any search asked for it). With pgvector,
   * the rows of each class's HNSW index.
   */
  annIndexed: { real: number | null; synthetic: number | null };
  encoder: string;
}

/** What the buffer in `db` holds now (see `BufferStats`). */
export function bufferStats(
  db: Database.Database,
  {
    path,
    annIndexed,
    encoder,
  }: { path: string; annIndexed: BufferStats['annIndexed']; encoder: string },
): BufferStats {
  const rows = db
    .prepare(
      `SELECT env, provenance, COUNT(*) AS trajectories, SUM(steps) AS transitions, AVG(success) AS successRate
       FROM trajectories GROUP BY env, provenance ORDER BY env, provenance`,
    )
    .all() as EnvCountRow[];
  const { trajectories, transitions, successRate, byEnv } = countsByEnv(rows);
  return {
    trajectories,
    transitions,
    distinctObservations: db.prepare('SELECT COUNT(*) FROM observations').pluck().get() as number,
    successRate,
    byEnv,
    bytes: path === ':memory:' ? 0 : fileSize(path) + fileSize(`${path}-wal`),
    retrieval: annIndexed.real === null ? 'exact' : 'ann',
    annIndexed,
    encoder,
  };
}

/** One row of a buffer's trajectories grouped by env and provenance. */
export interface EnvCountRow {
  env: string;
  provenance: Provenance;
  trajectories: number;
  transitions: number;
  successRate: number;
}

/** Totals and the by-env table of {@link BufferStats} from grouped rows (any backend's). */
export function countsByEnv(
  rows: readonly EnvCountRow[],
): Pick<BufferStats, 'trajectories' | 'transitions' | 'successRate' | 'byEnv'> {
  const byEnv: BufferStats['byEnv'] = {};
  let trajectories = 0;
  let transitions = 0;
  let successes = 0;
  for (const row of rows) {
    byEnv[row.env] ??= {} as BufferStats['byEnv'][string];
    (byEnv[row.env] as BufferStats['byEnv'][string])[row.provenance] = {
      trajectories: row.trajectories,
      transitions: row.transitions,
      successRate: row.successRate,
    };
    trajectories += row.trajectories;
    transitions += row.transitions;
    successes += row.successRate * row.trajectories;
  }
  return {
    trajectories,
    transitions,
    successRate: trajectories ? successes / trajectories : 0,
    byEnv,
  };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
