import type { EpisodeSummary } from './episode-source.ts';

/** The facets an episode list counts and filters by, each a value of an episode's summary. */
export const FACETS = ['env', 'provenance', 'outcome', 'end', 'policy'] as const;

/** One of {@link FACETS}. */
export type Facet = (typeof FACETS)[number];

/** Orders an episode list can be sorted in. */
export const SORTS = ['added', 'reward', 'steps', 'task'] as const;

/** What an episode list shows: filters, order and page. */
export interface EpisodeQuery {
  /** Wanted value per facet; a facet left out is not filtered. */
  facets?: Partial<Record<Facet, string>>;
  /** Case-insensitive text the task id or instruction must contain. */
  task?: string;
  minReward?: number;
  maxReward?: number;
  /** Only episodes of tasks that have both real and synthetic episodes. */
  paired?: boolean;
  sort?: (typeof SORTS)[number];
  /** Default: newest first for `added`, highest first for `reward` and `steps`, A–Z for `task`. */
  descending?: boolean;
  /** 0-based. */
  page?: number;
  pageSize?: number;
}

/** One page of an episode list with the counts that go beside its filters. */
export interface EpisodePage {
  episodes: EpisodeSummary[];
  /** Episodes matching every filter. */
  total: number;
  page: number;
  pages: number;
  /**
   * Per facet, how many episodes each value would show: the other facets' filters applied, not
   * the facet's own, so the counts say what choosing a value gives.
   */
  counts: Record<Facet, Array<[string, number]>>;
}

/** Real and synthetic episodes of one task. */
export interface TaskEpisodes {
  real: EpisodeSummary[];
  synthetic: EpisodeSummary[];
}

/** Filtered lists an index keeps for paging. */
const REMEMBERED = 16;

/** The value of a facet for an episode. */
export function facetValue(episode: EpisodeSummary, facet: Facet): string {
  switch (facet) {
    case 'env':
      return episode.env;
    case 'provenance':
      return episode.provenance;
    case 'outcome':
      return episode.success ? 'success' : 'failure';
    case 'end':
      return episode.end;
    case 'policy':
      return episode.policyId;
  }
}

/**
 * Every episode of a source in memory as a summary (about 300 bytes each: a million fit), with
 * filtering, counting, sorting and paging over them. Linear scans: 100k episodes are filtered
 * and counted in milliseconds, which an index per facet would not beat by enough to matter.
 */
export class EpisodeIndex {
  private readonly episodes: EpisodeSummary[] = [];
  private readonly byId = new Map<string, EpisodeSummary>();
  private readonly byTask = new Map<string, TaskEpisodes>();
  /** Filtered, sorted lists with their counts by query (page left out), until the next add. */
  private readonly results = new Map<
    string,
    Omit<EpisodePage, 'episodes' | 'page' | 'pages'> & { matching: EpisodeSummary[] }
  >();

  /** Adds episodes (a source's poll); ids already known are ignored. */
  add(episodes: readonly EpisodeSummary[]): void {
    if (episodes.length > 0) this.results.clear();
    for (const episode of episodes) {
      if (this.byId.has(episode.id)) continue;
      this.episodes.push(episode);
      this.byId.set(episode.id, episode);
      let task = this.byTask.get(episode.taskId);
      if (!task) {
        task = { real: [], synthetic: [] };
        this.byTask.set(episode.taskId, task);
      }
      (episode.provenance === 'synthetic' ? task.synthetic : task.real).push(episode);
    }
  }

  /** Episodes held. */
  get size(): number {
    return this.episodes.length;
  }

  /** One episode's summary. */
  get(id: string): EpisodeSummary | undefined {
    return this.byId.get(id);
  }

  /** The real and synthetic episodes of a task (none for an unknown task). */
  task(taskId: string): TaskEpisodes {
    return this.byTask.get(taskId) ?? { real: [], synthetic: [] };
  }

  /** Whether a task has both real and synthetic episodes. */
  paired(taskId: string): boolean {
    const task = this.byTask.get(taskId);
    return task !== undefined && task.real.length > 0 && task.synthetic.length > 0;
  }

  /**
   * One page of the episodes matching `query`, with counts per facet value. The filtered, sorted
   * list is kept (the last {@link REMEMBERED} queries, until episodes are added), so paging
   * through it costs a slice.
   */
  query(query: EpisodeQuery = {}): EpisodePage {
    const { page: _, pageSize: __, ...filters } = query;
    const key = JSON.stringify(filters);
    let result = this.results.get(key);
    if (!result) {
      result = this.filter(query);
      if (this.results.size >= REMEMBERED)
        this.results.delete(this.results.keys().next().value as string);
      this.results.set(key, result);
    }
    const { matching, counts, total } = result;
    const pageSize = Math.max(1, query.pageSize ?? 50);
    const pages = Math.max(1, Math.ceil(total / pageSize));
    const page = Math.min(Math.max(0, query.page ?? 0), pages - 1);
    return {
      episodes: matching.slice(page * pageSize, (page + 1) * pageSize),
      total,
      page,
      pages,
      counts,
    };
  }

  private filter(
    query: EpisodeQuery,
  ): Omit<EpisodePage, 'episodes' | 'page' | 'pages'> & { matching: EpisodeSummary[] } {
    const wanted = FACETS.filter((f) => query.facets?.[f] !== undefined);
    const text = query.task?.toLowerCase();
    const passesOthers = (e: EpisodeSummary): boolean =>
      (query.minReward === undefined || e.finalReward >= query.minReward) &&
      (query.maxReward === undefined || e.finalReward <= query.maxReward) &&
      (!query.paired || this.paired(e.taskId)) &&
      (text === undefined ||
        e.taskId.toLowerCase().includes(text) ||
        e.instruction.toLowerCase().includes(text));
    const counts = Object.fromEntries(FACETS.map((f) => [f, new Map<string, number>()])) as Record<
      Facet,
      Map<string, number>
    >;
    const matching: EpisodeSummary[] = [];
    for (const e of this.episodes) {
      if (!passesOthers(e)) continue;
      // The facets this episode fails; it counts for a facet only if it passes all the others.
      let failed: Facet | undefined;
      let failures = 0;
      for (const f of wanted) {
        if (facetValue(e, f) !== query.facets?.[f]) {
          failed = f;
          failures++;
          if (failures > 1) break;
        }
      }
      if (failures > 1) continue;
      for (const f of FACETS) {
        if (failures === 1 && f !== failed) continue;
        const value = facetValue(e, f);
        counts[f].set(value, (counts[f].get(value) ?? 0) + 1);
      }
      if (failures === 0) matching.push(e);
    }
    sortEpisodes(matching, query.sort ?? 'added', query.descending);
    return {
      matching,
      total: matching.length,
      counts: Object.fromEntries(
        FACETS.map((f) => [
          f,
          [...counts[f]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
        ]),
      ) as Record<Facet, Array<[string, number]>>,
    };
  }
}

function sortEpisodes(
  episodes: EpisodeSummary[],
  sort: NonNullable<EpisodeQuery['sort']>,
  descending?: boolean,
): void {
  const down = descending ?? sort !== 'task';
  if (sort === 'added') {
    // Episodes are held in the order they were added: no comparisons needed.
    if (down) episodes.reverse();
    return;
  }
  const sign = down ? -1 : 1;
  const key: (e: EpisodeSummary) => number | string =
    sort === 'reward' ? (e) => e.finalReward : sort === 'steps' ? (e) => e.steps : (e) => e.taskId;
  // Ties keep the order episodes were added in, so a page never reshuffles between requests.
  episodes.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -sign : sign;
    return a.rowid - b.rowid;
  });
}
