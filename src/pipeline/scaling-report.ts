import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderChart, scalingSpec } from '../report/plots.ts';
import { formatRate } from '../report/stats.ts';
import type { ScalingResult } from './scaling.ts';

/** The scaling table as markdown: one row per amount of offline data. */
export function scalingTable(result: ScalingResult): string {
  const seeds = result.options.seeds;
  const rows = result.points.map((p) => {
    const perSeed = p.runs.map((r) => `${(100 * r.success.mean).toFixed(1)}%`).join('; ');
    const transitions = Math.round(
      p.runs.reduce((s, r) => s + r.offlineTransitions, 0) / p.runs.length,
    );
    return `| ${p.offlineEpisodes} | ${transitions.toLocaleString('en-US')} | ${formatRate(p.success)} |${seeds > 1 ? ` ${perSeed} |` : ''} ${seeds > 1 ? formatRate(p.exactMatch) : `${(100 * p.exactMatch.mean).toFixed(1)}%`} | ${p.rewardMae.toFixed(3)} | ${p.runs.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s |`;
  });
  const header =
    seeds > 1
      ? `| offline episodes | offline transitions | held-out success, mean of ${seeds} seeds [95% CI across seeds] | per seed | next-state exact match [95% CI across seeds] | reward MAE | wall time |\n|---|---|---|---|---|---|---|`
      : '| offline episodes | offline transitions | held-out success [95% CI] | next-state exact match | reward MAE | wall time |\n|---|---|---|---|---|---|';
  return [header, ...rows].join('\n');
}

/** Writes scaling.json, scaling.md and the plot (SVG and PNG) into `dir`; returns the report's path. */
export async function writeScalingReport(result: ScalingResult, dir: string): Promise<string> {
  await writeFile(join(dir, 'scaling.json'), `${JSON.stringify(result, null, 2)}\n`);
  const success = 'held-out success in the real env (GRPO trained in the synthetic env only)';
  const fidelity = "the experience model's next-state exact match (teacher-forced)";
  const points = result.points.flatMap((p) => [
    {
      amount: p.offlineEpisodes,
      series: success,
      value: p.success.mean,
      low: p.success.low,
      high: p.success.high,
    },
    {
      amount: p.offlineEpisodes,
      series: fidelity,
      value: p.exactMatch.mean,
      low: p.exactMatch.low,
      high: p.exactMatch.high,
    },
  ]);
  const seeds =
    result.options.seeds > 1
      ? result.points.flatMap((p) =>
          p.runs.flatMap((r) => [
            { amount: p.offlineEpisodes, series: success, value: r.success.mean },
            { amount: p.offlineEpisodes, series: fidelity, value: r.exactMatch },
          ]),
        )
      : [];
  await renderChart(
    scalingSpec(
      points,
      `${result.env}: DreamGym vs offline data`,
      'offline real episodes in the buffer (log scale)',
      seeds,
    ),
    join(dir, 'scaling'),
  );
  const o = result.options;
  const markdown = `# Data scaling: ${result.env}

${scalingTable(result)}

- Each row: ${o.seeds > 1 ? `${o.seeds} seeds (${o.seed}…${o.seed + o.seeds - 1}); ` : `seed ${o.seed}; `}that many offline episodes of the scripted expert with ε = ${o.epsilon} fill the buffer; the LLM-free model learnt from it; GRPO from random weights for ${o.syntheticIterations} iterations in the synthetic env only (no real step); then one greedy episode on each of ${o.evalEpisodes} held-out test tasks in the **real** env.
- Fidelity: the model's teacher-forced next-state exact match and reward MAE on ${o.fidelityEpisodes} held-out real expert episodes, the same for every size, on tasks no offline set contains.
- Intervals: ${o.seeds > 1 ? 'Student t across seeds' : 'Wilson over the test tasks (success); none for a single seed (exact match)'}.

![scaling](scaling.png)
`;
  const path = join(dir, 'scaling.md');
  await writeFile(path, markdown);
  return path;
}
