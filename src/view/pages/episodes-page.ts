import {
  type EpisodeIndex,
  type EpisodeQuery,
  FACETS,
  type Facet,
  SORTS,
} from '../episode-index.ts';
import { type Html, html } from '../html.ts';
import { reward, tag } from './layout.ts';

/** How each facet is labelled above its filter. */
const FACET_LABELS: Record<Facet, string> = {
  env: 'env',
  provenance: 'provenance',
  outcome: 'outcome',
  end: 'end reason',
  policy: 'policy',
};

/** Page size of the episode list. */
export const PAGE_SIZE = 50;

/**
 * Reads an episode list's query from URL parameters (`provenance=synthetic&outcome=failure&
 * sort=reward&page=2` …); unknown values are ignored rather than failing the page.
 */
export function parseEpisodeQuery(params: URLSearchParams): EpisodeQuery {
  const facets: Partial<Record<Facet, string>> = {};
  for (const facet of FACETS) {
    const value = params.get(facet);
    if (value) facets[facet] = value;
  }
  const number = (name: string) => {
    const text = params.get(name);
    const value = text === null || text === '' ? Number.NaN : Number(text);
    return Number.isFinite(value) ? value : undefined;
  };
  const sort = params.get('sort');
  const order = params.get('order');
  const query: EpisodeQuery = {
    facets,
    pageSize: PAGE_SIZE,
    page: Math.max(0, (number('page') ?? 1) - 1),
  };
  const task = params.get('task')?.trim();
  if (task) query.task = task;
  const min = number('min');
  if (min !== undefined) query.minReward = min;
  const max = number('max');
  if (max !== undefined) query.maxReward = max;
  if (params.get('paired') === '1') query.paired = true;
  if (sort && (SORTS as readonly string[]).includes(sort))
    query.sort = sort as EpisodeQuery['sort'];
  if (order === 'asc' || order === 'desc') query.descending = order === 'desc';
  return query;
}

/** The episode list: filters with counts, sorting, a page of episodes, and paging links. */
export function episodesPage(index: EpisodeIndex, params: URLSearchParams): Html {
  const query = parseEpisodeQuery(params);
  const result = index.query(query);
  const link = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    return `/episodes?${next}`;
  };
  const select = (facet: Facet) => {
    const chosen = query.facets?.[facet];
    const options = result.counts[facet];
    const all = options.reduce((s, [, n]) => s + n, 0);
    const listed =
      chosen && !options.some(([v]) => v === chosen)
        ? [...options, [chosen, 0] as [string, number]]
        : options;
    return html`<label>${FACET_LABELS[facet]}<select name="${facet}" data-facet="${facet}"><option value="">any (${all})</option>${listed.map(
      ([value, n]) =>
        html`<option value="${value}" ${value === chosen && 'selected'}>${value} (${n})</option>`,
    )}</select></label>`;
  };
  const sortOption = (value: string, label: string) =>
    html`<option value="${value}" ${(query.sort ?? 'added') === value && 'selected'}>${label}</option>`;
  const first = result.page * PAGE_SIZE;
  return html`<h1>Episodes</h1>
<form class="filters" method="get" action="/episodes">
${FACETS.map(select)}
<label>task or instruction contains<input name="task" value="${query.task ?? ''}" size="18"></label>
<label>reward from<input name="min" value="${query.minReward ?? ''}" size="4" inputmode="decimal"></label>
<label>to<input name="max" value="${query.maxReward ?? ''}" size="4" inputmode="decimal"></label>
<label>tasks with real and synthetic<input type="checkbox" name="paired" value="1" ${query.paired && 'checked'}></label>
<label>sort<select name="sort">${sortOption('added', 'newest')}${sortOption('reward', 'reward')}${sortOption('steps', 'steps')}${sortOption('task', 'task')}</select></label>
<label>order<select name="order"><option value="">default</option><option value="desc" ${query.descending === true && 'selected'}>descending</option><option value="asc" ${query.descending === false && 'selected'}>ascending</option></select></label>
<button type="submit">Filter</button> <a href="/episodes">clear</a>
</form>
<p id="episode-count"><strong>${result.total.toLocaleString('en-US')}</strong> of ${index.size.toLocaleString('en-US')} episodes${
    result.total > 0 && html`, ${first + 1}–${Math.min(result.total, first + PAGE_SIZE)} shown`
  }</p>
<table id="episodes"><thead><tr><th class="num">#</th><th>provenance</th><th>outcome</th><th>task</th><th>env</th><th>policy</th><th class="num">steps</th><th class="num">reward</th><th>end</th><th></th></tr></thead><tbody>
${result.episodes.map(
  (
    e,
  ) => html`<tr class="episode" data-id="${e.id}"><td class="num muted">${e.rowid}</td><td>${tag(e.provenance)}</td><td>${tag(e.success ? 'success' : 'failure')}</td>
<td><a class="open" href="/episodes/${encodeURIComponent(e.id)}">${e.instruction || e.taskId}</a><div class="muted">${e.taskId}</div></td>
<td>${e.env}</td><td class="muted">${e.policyId}</td><td class="num">${e.steps}</td><td class="num">${reward(e.finalReward)}</td><td>${e.end}</td>
<td>${index.paired(e.taskId) && html`<a class="compare" href="/compare?task=${encodeURIComponent(e.taskId)}&${e.provenance === 'synthetic' ? 'synthetic' : 'real'}=${encodeURIComponent(e.id)}">beside ${e.provenance === 'synthetic' ? 'real' : 'synthetic'}</a>`}</td></tr>`,
)}
</tbody></table>
${result.total === 0 && html`<p class="muted">No episode matches these filters.</p>`}
<div class="pager">${result.page > 0 && html`<a id="prev-page" href="${link({ page: String(result.page) })}">← previous</a>`}
<span id="page-indicator">page ${result.page + 1} of ${result.pages}</span>
${result.page + 1 < result.pages && html`<a id="next-page" href="${link({ page: String(result.page + 2) })}">next →</a>`}</div>`;
}
