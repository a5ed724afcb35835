/**
 * Reading the buffer back as it was written: whole trajectories (for export and for the LLM-free
 * models' knowledge), trajectory ids, and one trajectory's transitions with their row ids.
 */
import type { Observation, Provenance, Step, StepInfo, Trajectory } from '../core/types.ts';
import type { StoredTransition } from './stored-transition.ts';
import type { TransitionStore } from './transition-store.ts';

/** Every stored trajectory, oldest first, rebuilt exactly as it was added. */
export function* storedTrajectories(
  store: TransitionStore,
  filter: { env?: string; provenance?: Provenance | readonly Provenance[] } = {},
): Generator<Trajectory> {
  const rows = store.db
    .prepare(
      `SELECT rowid, id, env, task_id, provenance, policy_id, seed, started_at, ended_at, initial_observation
       FROM trajectories WHERE (@env IS NULL OR env = @env)
         AND (@provenances IS NULL OR provenance IN (SELECT value FROM json_each(@provenances)))
       ORDER BY rowid`,
    )
    .iterate(filterParams(filter)) as Iterable<TrajectoryRow>;
  for (const row of rows) yield rebuild(store, row);
}

/** One stored trajectory by id, rebuilt exactly as it was added; undefined for an unknown id. */
export function storedTrajectory(store: TransitionStore, id: string): Trajectory | undefined {
  const row = store
    .sql(
      `SELECT rowid, id, env, task_id, provenance, policy_id, seed, started_at, ended_at, initial_observation
       FROM trajectories WHERE id = ?`,
    )
    .get(id) as TrajectoryRow | undefined;
  return row && rebuild(store, row);
}

/** A trajectory row with its steps and observations, as a {@link Trajectory}. */
function rebuild(store: TransitionStore, row: TrajectoryRow): Trajectory {
  const stepsOf = store.sql(
    `SELECT action, o.json AS observation, reward, terminated, truncated, reasoning, info
     FROM transitions JOIN observations o ON o.id = next_state WHERE trajectory = ? ORDER BY t`,
  );
  const observation = store.sql('SELECT json FROM observations WHERE id = ?').pluck();
  const steps = (stepsOf.all(row.rowid) as StepRow[]).map((s) => {
    const step: Step = {
      action: s.action,
      observation: JSON.parse(s.observation) as Observation,
      reward: s.reward,
      terminated: s.terminated === 1,
      truncated: s.truncated === 1,
    };
    if (s.reasoning !== null) step.reasoning = s.reasoning;
    if (s.info !== null) step.info = JSON.parse(s.info) as StepInfo;
    return step;
  });
  const trajectory: Trajectory = {
    id: row.id,
    env: row.env,
    task: store.task(row.task_id),
    initial: JSON.parse(observation.get(row.initial_observation) as string) as Observation,
    steps,
    provenance: row.provenance,
    policyId: row.policy_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
  if (row.seed !== null) trajectory.seed = row.seed;
  return trajectory;
}

/**
 * Ids of the stored trajectories, oldest first. With `storedTrajectoryTransitions` this makes a
 * pass over the buffer that writes as it goes (annotating reasoning, say), which an open
 * `trajectories()` iterator would block: SQLite refuses writes while a query is being read.
 */
export function storedTrajectoryIds(
  store: TransitionStore,
  filter: { env?: string; provenance?: Provenance | readonly Provenance[] } = {},
): string[] {
  return store.db
    .prepare(
      `SELECT id FROM trajectories WHERE (@env IS NULL OR env = @env)
         AND (@provenances IS NULL OR provenance IN (SELECT value FROM json_each(@provenances)))
       ORDER BY rowid`,
    )
    .pluck()
    .all(filterParams(filter)) as string[];
}

/** A stored trajectory's transitions with their ids, in step order; none for an unknown id. */
export function storedTrajectoryTransitions(
  store: TransitionStore,
  trajectoryId: string,
): StoredTransition[] {
  const ids = store.db
    .prepare(
      'SELECT tr.rowid FROM transitions tr JOIN trajectories j ON j.rowid = tr.trajectory WHERE j.id = ?',
    )
    .pluck()
    .all(trajectoryId) as number[];
  return store.fetch(ids).sort((a, b) => a.t - b.t);
}

/** A trajectory filter as the parameters of the queries above. */
function filterParams(filter: { env?: string; provenance?: Provenance | readonly Provenance[] }) {
  return {
    env: filter.env ?? null,
    provenances:
      filter.provenance === undefined ? null : JSON.stringify([filter.provenance].flat()),
  };
}

interface TrajectoryRow {
  rowid: number;
  id: string;
  env: string;
  task_id: string;
  provenance: Provenance;
  policy_id: string;
  seed: number | null;
  started_at: string;
  ended_at: string;
  initial_observation: number;
}

interface StepRow {
  action: string;
  observation: string;
  reward: number;
  terminated: number;
  truncated: number;
  reasoning: string | null;
  info: string | null;
}
