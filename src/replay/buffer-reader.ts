import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Provenance, Trajectory } from '../core/types.ts';
import { BufferLocationError, BufferNotFoundError, checkBufferLocation } from './buffer-errors.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { storedTrajectory } from './trajectory-rebuild.ts';
import { TransitionStore } from './transition-store.ts';

/** One stored trajectory in a line: what lists and filters need, without its steps. */
export interface TrajectoryHeader {
  /** Row id: trajectories are numbered in the order they were added. */
  rowid: number;
  id: string;
  env: string;
  taskId: string;
  provenance: Provenance;
  policyId: string;
  startedAt: string;
  steps: number;
  finalReward: number;
  success: boolean;
  /** How the last step ended the episode: `terminated`, or truncated and why (`time-limit`, …). */
  end: string;
}

/**
 * A replay buffer opened for reading only, as a viewer or a report opens it: SQLite's read-only
 * mode, no migration, no metadata, no encoder, nothing written (a live run may be writing the same
 * file; readers see its committed rows). Fails with the fix for a missing file, a directory, a
 * file that is not a buffer, or a buffer from a newer dreamgym.
 */
export class BufferReader {
  private readonly db: Database.Database;
  private readonly store: TransitionStore;

  private constructor(readonly path: string) {
    checkBufferLocation(path);
    if (!existsSync(path)) throw new BufferNotFoundError(path);
    if (statSync(path).isDirectory()) {
      throw new BufferLocationError(
        `${path} is a directory; pass a buffer's database file, e.g. ${path}/buffer.db.`,
      );
    }
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new BufferLocationError(
          `${path} has replay-buffer schema version ${version}, but this dreamgym reads up to version ${SCHEMA_VERSION}. Upgrade dreamgym to read it.`,
        );
      }
      if (version === 0) {
        throw new BufferLocationError(
          `${path} is a SQLite database but not a replay buffer (it has no buffer schema): pass the .db file that dreamgym run or dreamgym buffer import wrote.`,
        );
      }
    } catch (error) {
      this.db.close();
      if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
        throw new BufferLocationError(
          `${path} is not a SQLite database, so not a replay buffer: pass the .db file that dreamgym run or dreamgym buffer import wrote.`,
          { cause: error },
        );
      }
      throw error;
    }
    this.store = new TransitionStore(this.db);
  }

  /** Opens an existing buffer read-only. */
  static open(path: string): BufferReader {
    return new BufferReader(path);
  }

  /**
   * Headers of the trajectories added after row `afterRowid` (0: all of them), oldest first, at
   * most `limit` of them: a viewer reads a large buffer in slices and a growing one as it grows.
   */
  headers(afterRowid = 0, limit = 50_000): TrajectoryHeader[] {
    const rows = this.store
      .sql(
        `SELECT j.rowid, j.id, j.env, j.task_id, j.provenance, j.policy_id, j.started_at, j.steps,
            j.final_reward, j.success, tr.terminated, json_extract(tr.info, '$.truncatedBy') AS truncated_by
         FROM trajectories j LEFT JOIN transitions tr ON tr.trajectory = j.rowid AND tr.t = j.steps - 1
         WHERE j.rowid > ? ORDER BY j.rowid LIMIT ?`,
      )
      .all(afterRowid, limit) as HeaderRow[];
    return rows.map((r) => ({
      rowid: r.rowid,
      id: r.id,
      env: r.env,
      taskId: r.task_id,
      provenance: r.provenance,
      policyId: r.policy_id,
      startedAt: r.started_at,
      steps: r.steps,
      finalReward: r.final_reward,
      success: r.success === 1,
      end: r.terminated === 1 ? 'terminated' : (r.truncated_by ?? 'truncated'),
    }));
  }

  /** Instructions of the stored tasks by task id. */
  instructions(): Map<string, string> {
    const rows = this.store
      .sql("SELECT id, json_extract(json, '$.instruction') AS instruction FROM tasks")
      .all() as Array<{ id: string; instruction: string | null }>;
    return new Map(rows.map((r) => [r.id, r.instruction ?? '']));
  }

  /** One trajectory, rebuilt as it was added; undefined for an unknown id. */
  trajectory(id: string): Trajectory | undefined {
    return storedTrajectory(this.store, id);
  }

  /** Closes the database. */
  close(): void {
    this.db.close();
  }
}

interface HeaderRow {
  rowid: number;
  id: string;
  env: string;
  task_id: string;
  provenance: Provenance;
  policy_id: string;
  started_at: string;
  steps: number;
  final_reward: number;
  success: number;
  terminated: number | null;
  truncated_by: string | null;
}
