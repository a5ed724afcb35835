import { checkProvenance, type RetrieveFilter } from './filter-index.ts';
import { vectorBytes } from './stored-bytes.ts';
import type { RetrievedTransition, StoredTransition } from './stored-transition.ts';
import type { TransitionStore } from './transition-store.ts';

/**
 * The `k` stored transitions nearest to `query` by exact search (sqlite-vec's vec0 table, cosine
 * distance) among those passing `filter`, nearest first.
 */
export function exactRetrieve(
  store: TransitionStore,
  query: Float32Array,
  k: number,
  filter: RetrieveFilter,
): RetrievedTransition[] {
  const where = ['embedding MATCH @query', 'k = @k'];
  const params: Record<string, unknown> = { query: vectorBytes(query), k: BigInt(k) };
  if (filter.env !== undefined) {
    where.push('env = @env');
    params.env = filter.env;
  }
  const provenances = filter.provenance === undefined ? undefined : [filter.provenance].flat();
  if (provenances)
    where.push(`provenance IN (${provenances.map((p) => `'${checkProvenance(p)}'`).join(', ')})`);
  if (filter.success !== undefined) {
    where.push('success = @success');
    params.success = BigInt(filter.success ? 1 : 0);
  }
  const excluded = store.trajectoryRowid(filter.excludeTrajectory);
  if (excluded !== undefined) {
    where.push('trajectory != @exclude');
    params.exclude = BigInt(excluded);
  }
  const hits = store
    .sql(
      `SELECT rowid, distance FROM transition_vectors WHERE ${where.join(' AND ')} ORDER BY distance`,
    )
    .all(params) as Array<{ rowid: number; distance: number }>;
  const rows = new Map(store.fetch(hits.map((h) => h.rowid)).map((r) => [r.id, r]));
  return hits.map((h) => ({
    ...(rows.get(h.rowid) as StoredTransition),
    similarity: 1 - h.distance,
  }));
}
