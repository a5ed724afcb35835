import type { AnnIndex } from './ann-index.ts';
import { ANN_CLASSES, type AnnClass, annClassOf } from './ann-sync.ts';
import { checkProvenance, type FilterIndex, type RetrieveFilter } from './filter-index.ts';

/**
 * Filtered search of the per-provenance-class ANN indexes, shared by every buffer that keeps
 * usearch indexes in process (SQLite's, and PostgreSQL's without pgvector).
 */

/** One provenance class's index as searched: its vectors and the filter columns of its rows. */
export interface AnnClassIndex {
  annClass: AnnClass;
  ann: AnnIndex;
  filters: FilterIndex;
}

/** The provenance classes a filter admits. */
export function admittedClasses(filter: RetrieveFilter): AnnClass[] {
  if (filter.provenance === undefined) return ['real', 'synthetic'];
  const provenances = [filter.provenance].flat().map(checkProvenance);
  return (Object.keys(ANN_CLASSES) as AnnClass[]).filter((c) =>
    provenances.some((p) => annClassOf(p) === c),
  );
}

/**
 * The k nearest transitions of a class's index that pass `filter`: without a filter the index's
 * k nearest; with one, 2k candidates and then `overfetch` × k if too few pass. Undefined when even
 * those hold fewer than k passing and the index has more to give (exact search must answer).
 */
export function annSearch(
  sync: AnnClassIndex,
  query: Float32Array,
  k: number,
  filter: RetrieveFilter,
  excluded: number | undefined,
  overfetch: number,
): Array<{ key: number; distance: number }> | undefined {
  const ann = sync.ann;
  const narrowed = withinClass(filter, sync.annClass);
  const passes = narrowed && sync.filters.matcher(narrowed, excluded);
  for (const factor of passes ? [2, overfetch] : [1]) {
    const wanted = k * factor;
    const candidates = ann.search(query, wanted);
    const chosen = (passes ? candidates.filter((c) => passes(c.key)) : candidates).slice(0, k);
    if (chosen.length === k || candidates.length < wanted) return chosen;
  }
  return undefined;
}

/**
 * What is left of a filter inside one class's index: its provenance condition goes when it admits
 * the whole class. Undefined when nothing is left to check.
 */
function withinClass(filter: RetrieveFilter, annClass: AnnClass): RetrieveFilter | undefined {
  const narrowed = { ...filter };
  const wanted = filter.provenance === undefined ? undefined : [filter.provenance].flat();
  if (wanted && ANN_CLASSES[annClass].every((p) => wanted.includes(p))) delete narrowed.provenance;
  return Object.values(narrowed).some((value) => value !== undefined) ? narrowed : undefined;
}
