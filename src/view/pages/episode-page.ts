import type { Observation, Step, Trajectory } from '../../core/types.ts';
import type { EpisodeIndex } from '../episode-index.ts';
import { endReason } from '../episode-source.ts';
import { type Html, html } from '../html.ts';
import { stateText } from '../state-text.ts';
import { reward, tag } from './layout.ts';

/** The state before step `t`. */
export function stateBefore(trajectory: Trajectory, t: number): Observation {
  return t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation;
}

/** Step info fields shown in their own places rather than in the raw info. */
const SHOWN = new Set([
  'reasoning',
  'teacherReasoning',
  'truncatedBy',
  'invalidAction',
  'demonstrations',
]);

/** A step's flags: terminated, truncated and why, an invalid action and why. */
export function stepFlags(step: Step): Html {
  const by = step.info?.truncatedBy;
  return html`<span class="flags">${step.terminated && tag('terminated')}${
    step.truncated && tag(`truncated${typeof by === 'string' ? `: ${by}` : ''}`, 'failure')
  }${typeof step.info?.invalidAction === 'string' && tag(`invalid action: ${step.info.invalidAction}`, 'failure')}${
    !step.terminated &&
    !step.truncated &&
    !step.info?.invalidAction &&
    html`<span class="muted">—</span>`
  }</span>`;
}

function field(label: string, body: Html | string): Html {
  return html`<div class="field"><div class="label">${label}</div>${body}</div>`;
}

function stepSection(trajectory: Trajectory, t: number): Html {
  const step = trajectory.steps[t] as Step;
  const info = step.info ?? {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const modelReasoning = text(info.reasoning);
  // Episodes a SyntheticEnv writes back carry the model's reasoning in `reasoning` too (the
  // env records its own steps); it is the model's, not a policy's, so it is shown once.
  const teacher = text(info.teacherReasoning);
  const rest = Object.fromEntries(Object.entries(info).filter(([k]) => !SHOWN.has(k)));
  const demos = Array.isArray(info.demonstrations) ? (info.demonstrations as unknown[]) : [];
  return html`<section class="step" id="step-${t + 1}" data-step="${t + 1}">
<h2>Step ${t + 1} of ${trajectory.steps.length}</h2>
${field('action', html`<span class="action">${step.action}</span>`)}
${step.reasoning !== undefined && step.reasoning !== modelReasoning && field("policy's reasoning", html`<div class="reasoning policy">${step.reasoning}</div>`)}
${modelReasoning && field(`experience model's reasoning`, html`<div class="reasoning model">${modelReasoning}</div>`)}
${teacher && field("teacher's reasoning", html`<div class="reasoning">${teacher}</div>`)}
${field('reward and flags', html`<span class="reward">reward ${reward(step.reward)}</span> ${stepFlags(step)}`)}
${demos.length > 0 && field('demonstrations retrieved (real transitions the model was shown)', html`<span class="demos">${demos.map((d) => demoLink(String(d)))}</span>`)}
<div class="cols"><div>${field('state', stateText(stateBefore(trajectory, t).text))}</div><div>${field('next state', stateText(step.observation.text))}</div></div>
${Object.keys(rest).length > 0 && html`<details class="raw"><summary>other step info</summary><pre>${JSON.stringify(rest, null, 2)}</pre></details>`}
</section>`;
}

/** A demonstration reference (`trajectoryId#t`) as a link to that step of its episode. */
function demoLink(reference: string): Html {
  const at = reference.lastIndexOf('#');
  const t = Number(reference.slice(at + 1));
  if (at === -1 || !Number.isInteger(t)) return html`<code>${reference}</code> `;
  const id = reference.slice(0, at);
  return html`<a href="/episodes/${encodeURIComponent(id)}#step-${t + 1}">${id.slice(0, 8)}… step ${t + 1}</a> `;
}

/** One episode step by step: a summary, a timeline of actions, then each step's section. */
export function episodePage(trajectory: Trajectory, index: EpisodeIndex): Html {
  const last = trajectory.steps.at(-1);
  const paired = index.paired(trajectory.task.id);
  const side = trajectory.provenance === 'synthetic' ? 'synthetic' : 'real';
  return html`<h1>${trajectory.task.instruction}</h1>
<p>${tag(trajectory.provenance)} ${tag(last?.terminated && last.reward >= 1 ? 'success' : 'failure')} ${trajectory.env} · task <code>${trajectory.task.id}</code>${
    trajectory.task.origin === 'generated' &&
    html` (generated${trajectory.task.parentId && html` from <code>${trajectory.task.parentId}</code>`})`
  } · policy <code>${trajectory.policyId}</code> · ${trajectory.steps.length} steps · final reward ${reward(last?.reward ?? 0)} · ${endReason(trajectory)}${
    trajectory.seed !== undefined && html` · seed ${trajectory.seed}`
  }</p>
<p class="muted">episode <code>${trajectory.id}</code>, ${trajectory.startedAt} – ${trajectory.endedAt}${
    paired &&
    html` · <a id="open-compare" href="/compare?task=${encodeURIComponent(trajectory.task.id)}&${side}=${encodeURIComponent(trajectory.id)}">see it beside a ${side === 'synthetic' ? 'real' : 'synthetic'} episode of this task</a>`
  }</p>
${field('initial state', stateText(trajectory.initial.text))}
<div class="step-nav"><button id="prev-step" type="button">← previous</button><span id="step-indicator">${trajectory.steps.length} steps</span><button id="next-step" type="button">next →</button>
<span class="muted">keys: <kbd>←</kbd> <kbd>→</kbd> (or <kbd>k</kbd> <kbd>j</kbd>), <kbd>Home</kbd>, <kbd>End</kbd></span></div>
<ol class="timeline">${trajectory.steps.map((s, t) => html`<li><a href="#step-${t + 1}" title="${s.action}">${t + 1}. ${s.action}</a></li>`)}</ol>
${trajectory.steps.map((_, t) => stepSection(trajectory, t))}`;
}
