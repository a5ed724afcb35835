import type pg from 'pg';
import type { AnnOptions } from './ann-index.ts';
import { admittedClasses } from './ann-search.ts';
import { ANN_CLASSES, type AnnClass } from './ann-sync.ts';
import { checkProvenance, type RetrieveFilter } from './filter-index.ts';
import { WRITE_LOCK } from './postgres-schema.ts';
import { BufferSchemaError } from './schema.ts';
import { vectorFromBytes } from './stored-bytes.ts';

/**
 * Vector retrieval inside PostgreSQL with pgvector: a `vec vector(D)` column on `transitions`
 * and one HNSW index (cosine) per provenance class, partial on the class as the in-process
 * usearch indexes are split (`ANN_CLASSES`), so a search for real demonstrations never walks
 * synthetic write-backs. Processes then hold no vectors.
 */

/** Whether a PostgreSQL buffer searches with pgvector, and if not, why. */
export type PgvectorStatus =
  | { enabled: true; version: string; iterativeScan: boolean }
  | { enabled: false; reason: string };

/** pgvector's first version with HNSW indexes, and its first with iterative index scans. */
const HNSW_SINCE = '0.5.0';
const ITERATIVE_SCAN_SINCE = '0.8.0';
/** The most dimensions pgvector's HNSW index takes for a `vector` column. */
const HNSW_MAX_DIMENSIONS = 2000;
/** Transitions converted per query while a database made without pgvector gets its vectors. */
const BACKFILL_ROWS = 2000;

/**
 * Turns pgvector on for a buffer's database where the server has it: creates the extension
 * (which needs the right to, usually a superuser's, unless someone did it before), then, once
 * per database, adds `transitions.vec`, fills it from the stored float32 vectors (a database
 * created before pgvector was there) and builds the HNSW indexes, under the write lock, so adds
 * wait and every transition written afterwards carries its `vec`. Any failure of the extension
 * itself leaves the database as it was and returns why; the buffer then keeps usearch indexes.
 */
export async function enablePgvector(
  client: pg.PoolClient,
  dimensions: number,
  ann: AnnOptions,
): Promise<PgvectorStatus> {
  const available = await client.query(
    "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
  );
  if (available.rows.length === 0) {
    return {
      enabled: false,
      reason: 'pgvector is not installed on the server (no vector in pg_available_extensions)',
    };
  }
  if (dimensions > HNSW_MAX_DIMENSIONS) {
    return {
      enabled: false,
      reason: `pgvector's HNSW index takes at most ${HNSW_MAX_DIMENSIONS} dimensions; the encoder has ${dimensions}`,
    };
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
    const refused = await createExtension(client);
    if (refused) {
      await client.query('ROLLBACK');
      return { enabled: false, reason: refused };
    }
    const version = (
      await client.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    ).rows[0]?.extversion as string;
    if (olderThan(version, HNSW_SINCE)) {
      await client.query('ROLLBACK');
      return {
        enabled: false,
        reason: `pgvector ${version} has no HNSW index; install ${HNSW_SINCE} or later and run ALTER EXTENSION vector UPDATE`,
      };
    }
    const stored = (await client.query("SELECT value FROM meta WHERE key = 'vector_dimensions'"))
      .rows[0]?.value as string | undefined;
    if (stored === undefined) await addVectorColumn(client, dimensions, ann);
    else if (Number(stored) !== dimensions) {
      throw new BufferSchemaError(
        `the buffer's pgvector column has ${stored} dimensions, the encoder ${dimensions}; open it with the same embedder settings or build a new buffer.`,
      );
    }
    await client.query('COMMIT');
    return {
      enabled: true,
      version,
      iterativeScan: !olderThan(version, ITERATIVE_SCAN_SINCE),
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * `CREATE EXTENSION IF NOT EXISTS vector` in a savepoint; why it failed, or undefined. Where the
 * extension exists the statement checks no rights.
 */
async function createExtension(client: pg.PoolClient): Promise<string | undefined> {
  await client.query('SAVEPOINT create_vector');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    return undefined;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT create_vector');
    return `CREATE EXTENSION vector failed (${(error as Error).message}); a superuser can run it once in this database`;
  }
}

/** Adds and fills `transitions.vec` and builds its HNSW indexes, in the caller's transaction. */
async function addVectorColumn(
  client: pg.PoolClient,
  dimensions: number,
  ann: AnnOptions,
): Promise<void> {
  await client.query(`ALTER TABLE transitions ADD COLUMN vec vector(${dimensions})`);
  for (let after = '0'; ; ) {
    const { rows } = await client.query(
      `SELECT rowid, embedding FROM transitions WHERE rowid > $1 ORDER BY rowid LIMIT ${BACKFILL_ROWS}`,
      [after],
    );
    if (rows.length === 0) break;
    await client.query(
      `UPDATE transitions SET vec = u.vec::vector FROM unnest($1::bigint[], $2::text[]) AS u(rowid, vec)
       WHERE transitions.rowid = u.rowid`,
      [rows.map((r) => r.rowid), rows.map((r) => vectorLiteral(vectorFromBytes(r.embedding)))],
    );
    after = rows.at(-1)?.rowid as string;
  }
  // Built after the fill: one bulk build is much faster than growing the graph row by row.
  const m = Math.trunc(ann.connectivity ?? 16);
  const efConstruction = Math.trunc(ann.expansionAdd ?? 128);
  for (const annClass of Object.keys(ANN_CLASSES) as AnnClass[]) {
    await client.query(
      `CREATE INDEX transitions_vec_${annClass} ON transitions
       USING hnsw (vec vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efConstruction})
       WHERE ${inClass(annClass)}`,
    );
  }
  await client.query("INSERT INTO meta (key, value) VALUES ('vector_dimensions', $1)", [
    String(dimensions),
  ]);
}

/**
 * A row where the buffer's transitions carry `vec`, none where they do not: asked by writers
 * that do not search with pgvector themselves, inside their add's transaction after taking the
 * write lock, so that an add never leaves `vec` empty once another process has added the column.
 */
export const VECTOR_COLUMN_QUERY = "SELECT 1 FROM meta WHERE key = 'vector_dimensions'";

/** A vector as pgvector's text input; a float32 printed as a double reads back exactly. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}

/** How a pgvector search runs. */
export interface PgvectorSearchOptions {
  /** `hnsw.ef_search`: candidates the HNSW scan keeps (raised to k, at most 1,000). */
  expansionSearch: number;
  /** Whether the server's pgvector has iterative index scans (0.8.0 and later). */
  iterativeScan: boolean;
}

/**
 * The k transitions nearest to `query` (cosine distance) that pass `filter`, nearest first, as
 * rowids. One HNSW scan per admitted provenance class, the filter in the WHERE clause. pgvector
 * applies that filter to the candidates its scan yields, so a selective filter could leave fewer
 * than k: iterative scans (pgvector ≥ 0.8) go on fetching candidates until k pass, and when even
 * they return fewer (at most `hnsw.max_scan_tuples` candidates are read; older pgvector stops at
 * ef_search), the query runs again without index scans, which reads every row of the class that
 * passes: exact, as the usearch path's fallback.
 */
export async function pgvectorSearch(
  pool: pg.Pool,
  query: Float32Array,
  k: number,
  filter: RetrieveFilter,
  options: PgvectorSearchOptions,
): Promise<Array<{ key: number; distance: number }>> {
  const nearest = nearestQuery(query, k, filter);
  if (!nearest) return [];
  const efSearch = Math.min(1000, Math.max(Math.trunc(options.expansionSearch), k));
  const client = await pool.connect();
  try {
    await client.query(
      `BEGIN; SET LOCAL hnsw.ef_search = ${efSearch}${options.iterativeScan ? '; SET LOCAL hnsw.iterative_scan = strict_order' : ''}`,
    );
    let { rows } = await client.query(nearest.text, nearest.values);
    if (rows.length < k) {
      await client.query('SET LOCAL enable_indexscan = off');
      ({ rows } = await client.query(nearest.text, nearest.values));
    }
    await client.query('COMMIT');
    return rows.map((r) => ({ key: Number(r.rowid), distance: Number(r.distance) }));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The nearest-neighbour query: per admitted class, `ORDER BY vec <=> $1 LIMIT k` under the
 * class's own condition (which is what lets the planner use that class's partial index) and the
 * filter's; merged by distance. Undefined when the filter admits no class.
 */
function nearestQuery(
  query: Float32Array,
  k: number,
  filter: RetrieveFilter,
): { text: string; values: unknown[] } | undefined {
  const classes = admittedClasses(filter);
  if (classes.length === 0) return undefined;
  const values: unknown[] = [vectorLiteral(query), k];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions: string[] = [];
  if (filter.env !== undefined) conditions.push(`env = ${param(filter.env)}`);
  if (filter.success !== undefined) conditions.push(`success = ${param(filter.success)}`);
  if (filter.excludeTrajectory !== undefined) {
    conditions.push(
      `trajectory IS DISTINCT FROM (SELECT rowid FROM trajectories WHERE id = ${param(filter.excludeTrajectory)})`,
    );
  }
  const wanted =
    filter.provenance === undefined ? undefined : [filter.provenance].flat().map(checkProvenance);
  const scans = classes.map((annClass) => {
    const where = [inClass(annClass), ...conditions];
    const narrowed = wanted && ANN_CLASSES[annClass].filter((p) => wanted.includes(p));
    if (narrowed && narrowed.length < ANN_CLASSES[annClass].length)
      where.push(`provenance IN (${narrowed.map((p) => `'${p}'`).join(', ')})`);
    return `(SELECT rowid, vec <=> $1::vector AS distance FROM transitions
      WHERE ${where.join(' AND ')} ORDER BY vec <=> $1::vector LIMIT $2)`;
  });
  return {
    text: `SELECT rowid, distance FROM (${scans.join(' UNION ALL ')}) AS nearest ORDER BY distance LIMIT $2`,
    values,
  };
}

/** `provenance IN (…)` for a class: the predicate of its partial index, and of its scans. */
function inClass(annClass: AnnClass): string {
  return `provenance IN (${ANN_CLASSES[annClass].map((p) => `'${p}'`).join(', ')})`;
}

/** Whether version `a` (`x.y.z`) is older than `b`. */
function olderThan(a: string, b: string): boolean {
  const [pa, pb] = [a, b].map((v) => v.split('.').map((n) => Number.parseInt(n, 10) || 0));
  for (let i = 0; i < 3; i++) {
    const d = (pa?.[i] ?? 0) - (pb?.[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}
