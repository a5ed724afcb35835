import type { Step, Trajectory } from '../../core/types.ts';
import type { EpisodeIndex } from '../episode-index.ts';
import type { EpisodeSummary } from '../episode-source.ts';
import { type Html, html } from '../html.ts';
import { stateText } from '../state-text.ts';
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

/**
 * The episodes a compare page shows: the ones named, else the task's first real and first
 * synthetic episode. Undefined when the task lacks either kind.
 */
export function chooseComparison(
  index: EpisodeIndex,
  params: URLSearchParams,
): { taskId: string; realId: string; syntheticId: string } | undefined {
  let taskId = params.get('task') ?? '';
  const named = params.get('real') ?? params.get('synthetic');
  if (!taskId && named) taskId = index.get(named)?.taskId ?? '';
  const { real, synthetic } = index.task(taskId);
  const pick = (wanted: string | null, from: readonly EpisodeSummary[]) =>
    (wanted && from.find((e) => e.id === wanted)?.id) || from[0]?.id;
  const realId = pick(params.get('real'), real);
  const syntheticId = pick(params.get('synthetic'), synthetic);
  return realId && syntheticId ? { taskId, realId, syntheticId } : undefined;
}

function picker(name: 'real' | 'synthetic', chosen: string, options: readonly EpisodeSummary[]): Html {
  return html`<label>${name} episode <select name="${name}">${options.map(
    (e) => html`<option value="${e.id}" ${e.id === chosen && 'selected'}>#${e.rowid} ${e.provenance}, ${e.steps} steps, reward ${reward(e.finalReward)}, ${e.policyId}</option>`,
  )}</select></label>`;
}

function stepCell(step: Step | undefined): Html {
  if (!step) return html`<div class="muted">(episode ended)</div>`;
  return html`<div><span class="action">${step.action}</span></div><div>reward ${reward(step.reward)} ${stepFlags(step)}</div>${stateText(step.observation.text)}`;
}

/**
 * A synthetic and a real episode of one task side by side, step by step: each side's action and
 * next state, and between them a line diff of the predicted (synthetic) next state against the
 * real one — lines the model invented marked `+`, lines it left out `−`. Steps are paired by
 * index; where the two took different actions the diff compares different moves, which the row
 * says.
 */
export function comparePage(c: Comparison): Html {
  const rows = Math.max(c.real.steps.length, c.synthetic.steps.length);
  const first = diffLines(c.real.initial.text, c.synthetic.initial.text);
  return html`<h1>Synthetic beside real</h1>
<p>${c.real.task.instruction} · task <code>${c.taskId}</code></p>
<form class="filters" method="get" action="/compare"><input type="hidden" name="task" value="${c.taskId}">
${picker('synthetic', c.synthetic.id, c.synthetics)}${picker('real', c.real.id, c.reals)}<button type="submit">Compare</button></form>
<p class="muted">The diff reads from the real next state to the synthetic one: <span class="tag synthetic">+ invented by the model</span> <span class="tag real-offline">− real, left out by the model</span>.
Open <a href="/episodes/${encodeURIComponent(c.synthetic.id)}">the synthetic episode</a> or <a href="/episodes/${encodeURIComponent(c.real.id)}">the real one</a>.</p>
<table class="compare-table" id="compare"><thead><tr><th>step</th><th>${tag('synthetic')} ${c.synthetic.steps.length} steps, final reward ${reward(c.synthetic.steps.at(-1)?.reward ?? 0)}</th><th>diff: real → synthetic next state</th><th>${tag(c.real.provenance)} ${c.real.steps.length} steps, final reward ${reward(c.real.steps.at(-1)?.reward ?? 0)}</th></tr></thead><tbody>
<tr><td>start</td><td>${stateText(c.synthetic.initial.text)}</td><td>${diffBlock(first)}</td><td>${stateText(c.real.initial.text)}</td></tr>
${Array.from({ length: rows }, (_, t) => {
  const s = c.synthetic.steps[t];
  const r = c.real.steps[t];
  const sameAction = s && r && s.action === r.action;
  return html`<tr class="compare-step" data-step="${t + 1}"><td>${t + 1}${s && r && !sameAction && html`<div class="tag failure">different actions</div>`}</td>
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
