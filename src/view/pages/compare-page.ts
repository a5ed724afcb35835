import type { Step, Trajectory } from '../../core/types.ts';
import type { EpisodeIndex } from '../episode-index.ts';
import type { EpisodeSummary } from '../episode-source.ts';
import { type Html, html } from '../html.ts';
import { stateText } from '../state-text.ts';
import { alignSteps, sharedActions } from '../step-alignment.ts';
import { diffLines } from '../text-diff.ts';
import { stepFlags } from './episode-page.ts';
import { reward, tag } from './layout.ts';

/** A real and a synthetic episode of one task, and the other episodes to pick from. */
export interface Comparison {
  taskId: string;
  real: Trajectory;
  synthetic: Trajectory;
  reals: readonly EpisodeSummary[];
  synthetics: readonly EpisodeSummary[];
}

/** Real episodes a compare page reads to find the one that best matches the synthetic one. */
const CANDIDATES = 50;

/**
 * The episodes a compare page shows: the ones named; else the task's first synthetic episode
 * (or the named one), beside the real episode of the task that shares most of its actions in
 * order (of the first {@link CANDIDATES}), so the diffs compare the same moves where there are
 * any. Undefined when the task lacks either kind.
 */
export async function chooseComparison(
  index: EpisodeIndex,
  params: URLSearchParams,
  load: (id: string) => Promise<Trajectory | undefined>,
): Promise<Comparison | undefined> {
  let taskId = params.get('task') ?? '';
  const named = params.get('synthetic') ?? params.get('real');
  if (!taskId && named) taskId = index.get(named)?.taskId ?? '';
  const { real: reals, synthetic: synthetics } = index.task(taskId);
  const wanted = (name: string, from: readonly EpisodeSummary[]) => {
    const id = params.get(name);
    return id ? from.find((e) => e.id === id)?.id : undefined;
  };
  const syntheticId = wanted('synthetic', synthetics) ?? synthetics[0]?.id;
  if (!syntheticId || reals.length === 0) return undefined;
  const synthetic = await load(syntheticId);
  if (!synthetic) return undefined;
  const realId = wanted('real', reals);
  let real = realId ? await load(realId) : undefined;
  if (!real) {
    const actions = synthetic.steps.map((s) => s.action);
    let best = -1;
    for (const candidate of reals.slice(0, CANDIDATES)) {
      const episode = await load(candidate.id);
      if (!episode) continue;
      const shared = sharedActions(
        actions,
        episode.steps.map((s) => s.action),
      );
      if (shared > best) {
        best = shared;
        real = episode;
      }
    }
  }
  return real && { taskId, real, synthetic, reals, synthetics };
}

function picker(
  name: 'real' | 'synthetic',
  chosen: string,
  options: readonly EpisodeSummary[],
): Html {
  return html`<label>${name} episode <select name="${name}">${options.map(
    (e) =>
      html`<option value="${e.id}" ${e.id === chosen && 'selected'}>#${e.rowid} ${e.provenance}, ${e.steps} steps, reward ${reward(e.finalReward)}, ${e.policyId}</option>`,
  )}</select></label>`;
}

function stepCell(step: Step | undefined): Html {
  if (!step) return html`<div class="muted">(no step here)</div>`;
  return html`<div><span class="action">${step.action}</span></div><div>reward ${reward(step.reward)} ${stepFlags(step)}</div>${stateText(step.observation.text)}`;
}

/**
 * A synthetic and a real episode of one task side by side, step by step: each side's action and
 * next state, and between them a line diff of the predicted (synthetic) next state against the
 * real one — lines the model invented marked `+`, lines it left out `−`. Steps are lined up
 * by their actions ({@link alignSteps}); where the two took different actions the diff compares
 * different moves, which the row says.
 */
export function comparePage(c: Comparison): Html {
  const first = diffLines(c.real.initial.text, c.synthetic.initial.text);
  return html`<h1>Synthetic beside real</h1>
<p>${c.real.task.instruction} · task <code>${c.taskId}</code></p>
<form class="filters" method="get" action="/compare"><input type="hidden" name="task" value="${c.taskId}">
${picker('synthetic', c.synthetic.id, c.synthetics)}${picker('real', c.real.id, c.reals)}<button type="submit">Compare</button></form>
<p class="muted">The diff reads from the real next state to the synthetic one: <span class="tag synthetic">+ invented by the model</span> <span class="tag real-offline">− real, left out by the model</span>.
Open <a href="/episodes/${encodeURIComponent(c.synthetic.id)}">the synthetic episode</a> or <a href="/episodes/${encodeURIComponent(c.real.id)}">the real one</a>.</p>
<table class="compare-table" id="compare"><thead><tr><th>step (synthetic / real)</th><th>${tag('synthetic')} ${c.synthetic.steps.length} steps, final reward ${reward(c.synthetic.steps.at(-1)?.reward ?? 0)}</th><th>diff: real → synthetic next state</th><th>${tag(c.real.provenance)} ${c.real.steps.length} steps, final reward ${reward(c.real.steps.at(-1)?.reward ?? 0)}</th></tr></thead><tbody>
<tr><td>start</td><td>${stateText(c.synthetic.initial.text)}</td><td>${diffBlock(first)}</td><td>${stateText(c.real.initial.text)}</td></tr>
${alignSteps(
  c.synthetic.steps.map((s) => s.action),
  c.real.steps.map((s) => s.action),
).map((row) => {
  const s = row.a === undefined ? undefined : c.synthetic.steps[row.a];
  const r = row.b === undefined ? undefined : c.real.steps[row.b];
  const label = (i: number | undefined) => (i === undefined ? '–' : String(i + 1));
  return html`<tr class="compare-step${row.sameAction ? ' same-action' : ''}"><td>${label(row.a)} / ${label(row.b)}${s && r && !row.sameAction && html`<div class="tag failure">different actions</div>`}</td>
<td class="col">${stepCell(s)}</td><td class="col">${s && r ? diffBlock(diffLines(r.observation.text, s.observation.text)) : html`<span class="muted">—</span>`}</td><td class="col">${stepCell(r)}</td></tr>`;
})}
</tbody></table>`;
}

function diffBlock(lines: ReturnType<typeof diffLines>): Html {
  const changed = lines.filter((l) => l.kind !== 'same').length;
  return html`<div class="muted">${changed === 0 ? 'identical' : `${changed} lines differ`}</div><div class="diff">${lines.map(
    (l) => html`<div class="${l.kind}">${l.text}</div>`,
  )}</div>`;
}
