import type { DemoResult } from '../../pipeline/demo.ts';
import { chartSvg } from '../../report/plots.ts';
import { formatMean, formatRate } from '../../report/stats.ts';
import { type SeriesPoint, seriesSpec } from '../charts.ts';
import type { EpisodeIndex } from '../episode-index.ts';
import { type Html, html, raw } from '../html.ts';
import { type RunFolder, STAGES } from '../run-folder.ts';

/** The learning curves of a run's stages: held-out and rollout success, and rollout reward. */
async function curves(run: RunFolder): Promise<Html[]> {
  const success: SeriesPoint[] = [];
  const rewards: SeriesPoint[] = [];
  for (const stage of STAGES) {
    for (const m of run.metrics[stage] ?? []) {
      if (m.eval)
        success.push({
          series: `${stage}: held-out real success`,
          x: m.envSteps,
          y: m.eval.successRate,
        });
      success.push({
        series: `${stage}: rollout success`,
        x: m.envSteps,
        y: m.rollout.successRate,
      });
      rewards.push({
        series: `${stage}: rollout mean reward`,
        x: m.envSteps,
        y: m.rollout.meanReward,
      });
      if (m.eval)
        rewards.push({
          series: `${stage}: held-out mean reward`,
          x: m.envSteps,
          y: m.eval.meanReward,
        });
    }
  }
  const charts: Html[] = [];
  if (success.length > 0) {
    charts.push(
      figure(
        'success-curve',
        await chartSvg(
          seriesSpec(success, {
            title: 'Success',
            x: 'training env steps',
            y: 'success rate',
            yDomain: [0, 1],
          }),
        ),
      ),
      figure(
        'reward-curve',
        await chartSvg(
          seriesSpec(rewards, { title: 'Mean reward', x: 'training env steps', y: 'reward' }),
        ),
      ),
    );
  }
  const curriculum = run.curriculum ?? [];
  if (curriculum.length > 0) {
    const points = curriculum.flatMap((s) => [
      { series: 'informative share', x: s.iteration + 1, y: s.informativeShare },
      { series: 'mean reward variance V', x: s.iteration + 1, y: s.meanVariance },
      { series: 'mean reward', x: s.iteration + 1, y: s.meanReward },
    ]);
    charts.push(
      figure(
        'curriculum-curve',
        await chartSvg(
          seriesSpec(points, {
            title: 'Curriculum',
            x: 'iteration',
            y: 'share / variance / reward',
            xIntegers: true,
          }),
        ),
      ),
    );
  }
  return charts;
}

function figure(id: string, svg: string): Html {
  return html`<figure id="${id}">${raw(svg)}</figure>`;
}

function demoTable(demo: DemoResult): Html {
  return html`<h2>Table 1 (${demo.env}, ${demo.rows[0]?.seeds.length ?? 1} seed${(demo.rows[0]?.seeds.length ?? 1) > 1 && 's'})</h2>
<table id="demo-table"><thead><tr><th>method</th><th>held-out success [95% CI]</th><th>mean reward</th><th class="num">real interactions</th><th class="num">synthetic interactions</th><th class="num">wall time</th></tr></thead><tbody>
${demo.rows.map(
  (r) =>
    html`<tr><td>${r.method}</td><td>${formatRate(r.success)}</td><td>${formatMean(r.reward)}</td><td class="num">${r.realInteractions.toLocaleString('en-US')}</td><td class="num">${r.syntheticInteractions.toLocaleString('en-US')}</td><td class="num">${r.seconds.toFixed(0)} s</td></tr>`,
)}</tbody></table>`;
}

function card(label: string, value: string, id?: string): Html {
  return html`<div class="card" ${id && html`id="${id}"`}><div class="muted">${label}</div><div class="value">${value}</div></div>`;
}

function stageTable(run: RunFolder): Html {
  return html`${STAGES.filter((s) => (run.metrics[s]?.length ?? 0) > 0).map((stage) => {
    const rows = run.metrics[stage] ?? [];
    return html`<h3>${stage} training: ${rows.length} iterations</h3><table class="iterations"><thead><tr><th class="num">iteration</th><th class="num">env steps</th><th class="num">rollout success</th><th class="num">rollout reward</th><th class="num">informative groups</th><th class="num">held-out success</th><th class="num">approx KL</th><th class="num">seconds</th></tr></thead><tbody>${rows.map(
      (m) =>
        html`<tr><td class="num">${m.iteration + 1}</td><td class="num">${m.envSteps}</td><td class="num">${(100 * m.rollout.successRate).toFixed(1)}%</td><td class="num">${m.rollout.meanReward.toFixed(3)}</td><td class="num">${m.rollout.informativeGroups === undefined ? '' : `${(100 * m.rollout.informativeGroups).toFixed(0)}%`}</td><td class="num">${m.eval ? `${(100 * m.eval.successRate).toFixed(1)}%` : ''}</td><td class="num">${m.update.approxKl.toExponential(1)}</td><td class="num">${m.seconds?.toFixed(1) ?? ''}</td></tr>`,
    )}</tbody></table>`;
  })}`;
}

function curriculumTable(run: RunFolder): Html {
  const stats = run.curriculum ?? [];
  if (stats.length === 0) return html``;
  return html`<h3>Curriculum</h3><table id="curriculum"><thead><tr><th class="num">iteration</th><th class="num">pool size</th><th class="num">generated tasks</th><th class="num">new</th><th class="num">tasks played</th><th class="num">informative share</th><th class="num">mean variance V</th><th class="num">mean reward</th></tr></thead><tbody>${stats.map(
    (s) =>
      html`<tr><td class="num">${s.iteration + 1}</td><td class="num">${s.poolSize}</td><td class="num">${s.generatedTasks}</td><td class="num">${s.newTasks}</td><td class="num">${s.tasksPlayed}</td><td class="num">${(100 * s.informativeShare).toFixed(0)}%</td><td class="num">${s.meanVariance.toFixed(4)}</td><td class="num">${s.meanReward.toFixed(3)}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * The part of the dashboard that follows the run: figures, curves, the curriculum, the demo's
 * table. Served alone at `/dashboard/live` for live updates.
 */
export async function dashboardLive(run: RunFolder, index: EpisodeIndex): Promise<Html> {
  const all = index.query({ pageSize: 1 });
  const count = (value: string) => all.counts.provenance.find(([v]) => v === value)?.[1] ?? 0;
  const summary = run.summary as
    | {
        afterSynthetic?: { success?: { mean: number } };
        afterS2r?: { success?: { mean: number } };
        syntheticInteractions?: number;
      }
    | undefined;
  const lastIteration = run.metrics.synthetic?.at(-1);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return html`<div class="cards">
${card('episodes', index.size.toLocaleString('en-US'), 'card-episodes')}
${card('real', (count('real-offline') + count('real-online')).toLocaleString('en-US'))}
${card('synthetic', count('synthetic').toLocaleString('en-US'))}
${lastIteration && card('synthetic iterations', String(lastIteration.iteration + 1), 'card-iterations')}
${summary?.afterSynthetic?.success && card('held-out success after synthetic', pct(summary.afterSynthetic.success.mean))}
${summary?.afterS2r?.success && card('after S2R', pct(summary.afterS2r.success.mean))}
${!summary && !run.demo && card('status', 'running or stopped')}
</div>
<div class="charts">${await curves(run)}</div>
${run.demo && demoTable(run.demo)}
${stageTable(run)}
${curriculumTable(run)}
${run.problems.map((p) => html`<div class="warn">${p}</div>`)}`;
}

/** A run's dashboard: the live part, then the run's config and versions. */
export async function dashboardPage(run: RunFolder, index: EpisodeIndex): Promise<Html> {
  return html`<h1>Run <code>${run.dir}</code></h1>
<p class="muted"><span id="live-dot" class="live-dot"></span>updates while the run writes its files</p>
<div id="live">${await dashboardLive(run, index)}</div>
<h2>Config</h2>${run.config === undefined ? html`<p class="muted">no config.json</p>` : html`<pre id="config">${JSON.stringify(run.config, null, 2)}</pre>`}
<h2>Versions</h2>${run.versions === undefined ? html`<p class="muted">no versions.json</p>` : html`<table id="versions"><tbody>${Object.entries(run.versions).map(([k, v]) => html`<tr><td>${k}</td><td>${v}</td></tr>`)}</tbody></table>`}`;
}
