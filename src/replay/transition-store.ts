import type Database from 'better-sqlite3';
import {
  finalReward,
  isSuccess,
  type Observation,
  type Provenance,
  type StepInfo,
  type Task,
  type Trajectory,
} from '../core/types.ts';
import { observationHash, vectorBytes } from './stored-bytes.ts';
import type { StoredTransition } from './stored-transition.ts';

/**
 * The replay buffer's rows in SQLite: writing trajectories with their transitions and vectors,
 * reading transitions back by rowid, tasks (cached: they never change), metadata, and the
 * prepared statements all of it runs on, prepared once per connection.
 */
export class TransitionStore {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly tasks = new Map<string, Task>();

  constructor(readonly db: Database.Database) {}

  /** A prepared statement, prepared once per buffer. */
  sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Writes trajectories and their transitions' vectors; the caller holds the transaction, with
   * foreign-key checks off: `insert` takes every id it references from rows it has just written
   * or looked up, and the checks cost an eighth of the insert time. A test runs
   * `foreign_key_check`.
   */
  insert(trajectories: readonly Trajectory[], vectors: readonly Float32Array[]): void {
    const insertTask = this.sql('INSERT OR IGNORE INTO tasks (id, env, json) VALUES (?, ?, ?)');
    const insertObservation = this.sql(
      'INSERT OR IGNORE INTO observations (hash, json) VALUES (?, ?)',
    );
    const observationByHash = this.sql('SELECT id FROM observations WHERE hash = ?').pluck();
    const insertTrajectory = this.sql(
      `INSERT INTO trajectories (id, env, task_id, provenance, policy_id, seed, started_at, ended_at, added_at,
         initial_observation, steps, final_reward, success)
       VALUES (@id, @env, @taskId, @provenance, @policyId, @seed, @startedAt, @endedAt, @addedAt,
         @initial, @steps, @finalReward, @success)`,
    );
    const insertTransition = this.sql(
      `INSERT INTO transitions (trajectory, t, state, action, next_state, reward, terminated, truncated, reasoning, info, provenance)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertVector = this.sql(
      'INSERT INTO transition_vectors (rowid, embedding, env, provenance, success, trajectory) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const observationId = (o: Observation): number => {
      const json = JSON.stringify(o);
      const hash = observationHash(json);
      const { changes, lastInsertRowid } = insertObservation.run(hash, json);
      return changes === 1 ? Number(lastInsertRowid) : (observationByHash.get(hash) as number);
    };
    const addedAt = new Date().toISOString();
    let v = 0;
    for (const t of trajectories) {
      insertTask.run(t.task.id, t.task.env, JSON.stringify(t.task));
      const initial = observationId(t.initial);
      const success = isSuccess(t) ? 1 : 0;
      const trajectory = insertTrajectory.run({
        id: t.id,
        env: t.env,
        taskId: t.task.id,
        provenance: t.provenance,
        policyId: t.policyId,
        seed: t.seed ?? null,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        addedAt,
        initial,
        steps: t.steps.length,
        finalReward: finalReward(t),
        success,
      }).lastInsertRowid;
      let state = initial;
      t.steps.forEach((step, i) => {
        const next = observationId(step.observation);
        const rowid = insertTransition.run(
          trajectory,
          i,
          state,
          step.action,
          next,
          step.reward,
          step.terminated ? 1 : 0,
          step.truncated ? 1 : 0,
          step.reasoning ?? null,
          step.info === undefined ? null : JSON.stringify(step.info),
          t.provenance,
        ).lastInsertRowid;
        const vector = vectors[v++] as Float32Array;
        insertVector.run(
          BigInt(rowid),
          vectorBytes(vector),
          t.env,
          t.provenance,
          BigInt(success),
          BigInt(trajectory),
        );
        state = next;
      });
    }
  }

  /** Transitions by rowid, in no particular order. */
  fetch(ids: readonly number[]): StoredTransition[] {
    if (ids.length === 0) return [];
    const rows = this.sql(
      `SELECT tr.rowid AS id, tr.t, tr.action, tr.reward, tr.terminated, tr.truncated, tr.reasoning, tr.info,
           s.json AS state, n.json AS nextState, j.id AS trajectoryId, j.task_id AS taskId, j.provenance, j.policy_id AS policyId
         FROM transitions tr
           JOIN trajectories j ON j.rowid = tr.trajectory
           JOIN observations s ON s.id = tr.state
           JOIN observations n ON n.id = tr.next_state
         WHERE tr.rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as FetchRow[];
    return rows.map((r) => {
      const transition: StoredTransition = {
        id: r.id,
        trajectoryId: r.trajectoryId,
        provenance: r.provenance,
        policyId: r.policyId,
        task: this.task(r.taskId),
        t: r.t,
        state: JSON.parse(r.state) as Observation,
        action: r.action,
        nextState: JSON.parse(r.nextState) as Observation,
        reward: r.reward,
        terminated: r.terminated === 1,
        truncated: r.truncated === 1,
      };
      if (r.reasoning !== null) transition.reasoning = r.reasoning;
      if (r.info !== null) transition.info = JSON.parse(r.info) as StepInfo;
      return transition;
    });
  }

  task(id: string): Task {
    let task = this.tasks.get(id);
    if (!task) {
      task = JSON.parse(
        this.sql('SELECT json FROM tasks WHERE id = ?').pluck().get(id) as string,
      ) as Task;
      this.tasks.set(id, task);
    }
    return task;
  }

  /** The highest transition rowid: the count, as transitions are never deleted. O(log n). */
  maxRowid(): number {
    return (this.sql('SELECT MAX(rowid) FROM transitions').pluck().get() as number | null) ?? 0;
  }

  /** The rowid of the trajectory with this id, if stored. */
  trajectoryRowid(id: string | undefined): number | undefined {
    if (id === undefined) return undefined;
    return this.sql('SELECT rowid FROM trajectories WHERE id = ?').pluck().get(id) as
      | number
      | undefined;
  }

  /** A value of the buffer's metadata table. */
  getMeta(key: string): string | undefined {
    return this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as
      | string
      | undefined;
  }

  /** Sets a value of the buffer's metadata table. */
  setMeta(key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }
}

interface FetchRow {
  id: number;
  t: number;
  action: string;
  reward: number;
  terminated: number;
  truncated: number;
  reasoning: string | null;
  info: string | null;
  state: string;
  nextState: string;
  trajectoryId: string;
  taskId: string;
  provenance: Provenance;
  policyId: string;
}
