/**
 * The viewer's stylesheet and script, served from memory at `/assets/…`: nothing is fetched
 * from a CDN, and every page works without the script (it adds step-by-step navigation, keyboard
 * keys, filters that apply on change, and live dashboard updates).
 */

/** The stylesheet. */
export const STYLE = `
:root { --fg: #1d1f23; --muted: #667; --line: #d9dce3; --bg: #fff; --soft: #f5f6f9;
  --real: #1f6feb; --synthetic: #a24bd8; --good: #1a7f37; --bad: #cf222e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 18px; align-items: baseline; padding: 10px 20px; border-bottom: 1px solid var(--line); background: var(--soft); }
header.top .brand { font-weight: 700; }
header.top nav a { margin-right: 14px; }
header.top .what { color: var(--muted); margin-left: auto; font-size: 12px; }
main { padding: 16px 20px; max-width: 1500px; }
a { color: #0b5cad; text-decoration: none; } a:hover { text-decoration: underline; }
h1 { font-size: 20px; margin: 0 0 10px; } h2 { font-size: 16px; margin: 18px 0 8px; } h3 { font-size: 14px; margin: 10px 0 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.episode:hover { background: #f0f4ff; }
.warn { background: #fff8c5; border: 1px solid #e9d66b; padding: 6px 10px; margin: 6px 0; }
.muted { color: var(--muted); }
.tag { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; border: 1px solid var(--line); }
.tag.synthetic { color: var(--synthetic); border-color: var(--synthetic); }
.tag.real-offline, .tag.real-online { color: var(--real); border-color: var(--real); }
.tag.success { color: var(--good); border-color: var(--good); } .tag.failure { color: var(--bad); border-color: var(--bad); }
form.filters { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: end; padding: 10px; background: var(--soft); border: 1px solid var(--line); margin-bottom: 10px; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
form.filters select, form.filters input { font: inherit; padding: 2px 4px; }
.pager { display: flex; gap: 12px; align-items: center; margin: 10px 0; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
.state { background: var(--soft); border: 1px solid var(--line); padding: 8px; max-height: 560px; overflow: auto; font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
.tree details { margin-left: 14px; } .tree .leaf { margin-left: 28px; white-space: pre-wrap; }
.tree > details, .tree > .leaf { margin-left: 0; }
.tree summary { cursor: pointer; white-space: pre-wrap; }
.step-nav { display: flex; gap: 10px; align-items: center; margin: 10px 0; position: sticky; top: 0; background: var(--bg); padding: 6px 0; border-bottom: 1px solid var(--line); z-index: 1; }
.step-nav kbd { border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; font-size: 11px; }
.js .step { display: none; } .js .step.current { display: block; }
.step { border: 1px solid var(--line); padding: 10px; margin: 10px 0; }
.step .cols { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.field { margin: 6px 0; } .field > .label { font-size: 12px; color: var(--muted); }
.action { font: 600 13px ui-monospace, monospace; background: #eef3ff; padding: 4px 8px; display: inline-block; }
.reasoning { background: #fbf7ff; border-left: 3px solid var(--synthetic); padding: 6px 8px; white-space: pre-wrap; }
.reasoning.policy { background: #f3f8ff; border-left-color: var(--real); }
.flags .tag { margin-right: 4px; }
ol.timeline { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; margin: 6px 0; }
ol.timeline a { display: block; padding: 1px 6px; border: 1px solid var(--line); font: 11px ui-monospace, monospace; max-width: 220px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
ol.timeline a.current { background: #0b5cad; color: #fff; }
.compare { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 10px; }
.compare .col { min-width: 0; }
.diff { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; border: 1px solid var(--line); max-height: 560px; overflow: auto; }
.diff div { white-space: pre-wrap; padding: 0 6px; }
.diff .added { background: #f3e6ff; } .diff .added::before { content: "+ "; color: var(--synthetic); }
.diff .removed { background: #e6f0ff; } .diff .removed::before { content: "- "; color: var(--real); }
.diff .same::before { content: "  "; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.card { border: 1px solid var(--line); padding: 8px 12px; min-width: 140px; background: var(--soft); }
.card .value { font-size: 20px; font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.charts figure { margin: 0; border: 1px solid var(--line); padding: 6px; }
.live-dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #aaa; margin-right: 4px; }
.live-dot.on { background: var(--good); }
details.raw summary { cursor: pointer; }
`;

/** The script. */
export const SCRIPT = `
document.documentElement.classList.add('js');

// Filters apply as soon as one changes.
for (const form of document.querySelectorAll('form.filters')) {
  for (const input of form.querySelectorAll('select, input[type=checkbox]')) {
    input.addEventListener('change', () => form.requestSubmit());
  }
}

// One episode, step by step: arrows or j/k move, Home/End jump; the step is kept in the URL.
const steps = [...document.querySelectorAll('section.step')];
if (steps.length > 0) {
  const indicator = document.getElementById('step-indicator');
  const links = [...document.querySelectorAll('ol.timeline a')];
  let current = 0;
  const show = (i) => {
    current = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach((s, k) => s.classList.toggle('current', k === current));
    links.forEach((a, k) => a.classList.toggle('current', k === current));
    if (indicator) indicator.textContent = 'step ' + (current + 1) + ' of ' + steps.length;
    history.replaceState(null, '', '#step-' + (current + 1));
  };
  const fromHash = Number((location.hash.match(/^#step-(\\d+)$/) || [])[1] || 1) - 1;
  show(fromHash);
  document.getElementById('prev-step')?.addEventListener('click', () => show(current - 1));
  document.getElementById('next-step')?.addEventListener('click', () => show(current + 1));
  links.forEach((a, k) => a.addEventListener('click', (e) => { e.preventDefault(); show(k); }));
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.metaKey || e.ctrlKey || e.altKey) return;
    if (e.key === 'ArrowRight' || e.key === 'j') show(current + 1);
    else if (e.key === 'ArrowLeft' || e.key === 'k') show(current - 1);
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(steps.length - 1);
    else return;
    e.preventDefault();
  });
}

// A run's dashboard follows the run: the server says when its files change.
const live = document.getElementById('live');
if (live && window.EventSource) {
  const dot = document.getElementById('live-dot');
  const source = new EventSource('/events');
  source.addEventListener('open', () => dot?.classList.add('on'));
  source.addEventListener('error', () => dot?.classList.remove('on'));
  source.addEventListener('change', async () => {
    const answer = await fetch('/dashboard/live');
    if (answer.ok) live.innerHTML = await answer.text();
  });
}
`;
