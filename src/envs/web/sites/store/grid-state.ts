import type { GridState } from './layout.ts';
import type { StoreContext } from './session.ts';

/** Rows per grid page: short enough for an agent to read a page as text. */
export const PER_PAGE = 20;

/**
 * A grid's state from the query string: search text, filters (only the names given), a known
 * sort column (else the default) and direction, and a page number clamped to ≥ 1.
 */
export function readGridState(
  c: StoreContext,
  base: string,
  options: {
    sorts: Readonly<Record<string, string>>;
    sort: string;
    dir: 'asc' | 'desc';
    filters: readonly string[];
  },
): GridState & { q: string; filters: Record<string, string | undefined>; orderBy: string } {
  const q = (c.req.query('q') ?? '').trim();
  const filters: Record<string, string | undefined> = {};
  for (const name of options.filters) filters[name] = c.req.query(name) || undefined;
  const requested = c.req.query('sort') ?? '';
  const sort = requested in options.sorts ? requested : options.sort;
  const dirParam = c.req.query('dir');
  const dir = dirParam === 'asc' || dirParam === 'desc' ? dirParam : options.dir;
  const page = Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1);
  const orderBy = `${options.sorts[sort]} ${dir === 'asc' ? 'ASC' : 'DESC'}`;
  return { base, params: { q: q || undefined, ...filters }, sort, dir, page, q, filters, orderBy };
}
