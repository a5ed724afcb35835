import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  formatPaperFigure,
  PAPER_CITATION,
  PAPER_TABLE_1,
  paperFigureFor,
} from '../report/paper-reference.ts';
import { learningCurveSpec, renderChart, successVsRealSpec } from '../report/plots.ts';
import type { RankAgreement } from '../report/rank-agreement.ts';
import { formatMean, formatRate } from '../report/stats.ts';
import { DEFAULT_REAL_SHARE } from './config.ts';
import type { DemoResult } from './demo.ts';
import { DPO_ROW } from './dpo-baseline.ts';

/**
 * The demo's table as markdown. With several seeds, success is the mean over seeds with a 95%
 * Student-t interval across them, followed by each seed's rate and Wilson interval.
 */
export function demoTable(result: DemoResult): string {
  const seeds = result.rows[0]?.seeds.length ?? 1;
  const header =
    seeds > 1
      ? `| method | held-out success, mean of ${seeds} seeds [95% CI across seeds] | per seed [95% CI over test tasks] | mean reward | real interactions (training) | synthetic interactions | wall time |`
      : '| method | held-out success [95% CI] | mean reward ± 95% CI | real interactions (training) | synthetic interactions | wall time |';
  const rule = seeds > 1 ? '|---|---|---|---|---|---|---|' : '|---|---|---|---|---|---|';
  const lines = result.rows.map((r) => {
    const perSeed = r.seeds.map((s) => formatRate(s.success)).join('; ');
    const reward = seeds > 1 ? r.reward.mean.toFixed(3) : formatMean(r.reward);
    return `| ${r.method} | ${formatRate(r.success)} |${seeds > 1 ? ` ${perSeed} |` : ''} ${reward} | ${r.realInteractions.toLocaleString('en-US')} | ${r.syntheticInteractions.toLocaleString('en-US')} | ${r.seconds.toFixed(0)} s |`;
  });
  return [header, rule, ...lines].join('\n');
}

/**
 * The cost of each trained row side by side: real and synthetic training transitions, measured
 * wall time in all and per 1,000 training transitions (seeds' mean), and — where the real env is
 * not ours to measure — its time and money at the given cost of a real step. Synthetic steps cost
 * LLM calls instead when the experience model is an LLM (the demo's total is given below it).
 */
export function costTable(result: DemoResult): string {
  const { realStepSeconds, realStepCost } = result.options;
  const header = [
    'method',
    'real steps',
    'synthetic steps',
    'wall time',
    'wall time per 1,000 training transitions',
    ...(realStepSeconds !== undefined ? [`real-env time at ${realStepSeconds} s a step`] : []),
    ...(realStepCost !== undefined ? [`real-env cost at ${realStepCost} a step`] : []),
  ];
  const rows = result.rows
    .filter((r) => r.realInteractions + r.syntheticInteractions > 0)
    .map((r) => {
      const perThousand =
        r.seeds.reduce(
          (sum, s) => sum + (1000 * s.seconds) / (s.realInteractions + s.syntheticInteractions),
          0,
        ) / r.seeds.length;
      return [
        `| ${r.method} | ${r.realInteractions.toLocaleString('en-US')} | ${r.syntheticInteractions.toLocaleString('en-US')} | ${(r.seconds / r.seeds.length).toFixed(0)} s | ${perThousand.toFixed(1)} s`,
        ...(realStepSeconds !== undefined
          ? [`${hours(r.realInteractions * realStepSeconds)}`]
          : []),
        ...(realStepCost !== undefined ? [(r.realInteractions * realStepCost).toFixed(2)] : []),
      ].join(' | ');
    });
  const { calls, promptTokens, completionTokens, costUsd } = result.llm;
  const llm =
    calls === 0
      ? 'LLM calls: none (the LLM-free experience model).'
      : `LLM calls: ${calls.toLocaleString('en-US')}, ${promptTokens.toLocaleString('en-US')} prompt and ${completionTokens.toLocaleString('en-US')} completion tokens, $${costUsd.toFixed(2)} at the configured prices.`;
  return [
    `| ${header.join(' | ')} |`,
    `|${'---|'.repeat(header.length)}`,
    ...rows.map((r) => `${r} |`),
    '',
    `Wall time is per seed, training and its evaluations included, on this machine${result.rows.some((r) => r.method.includes('S2R')) ? "; an S2R row's is its real fine-tuning only (its synthetic steps are its DreamGym row's, counted again here)" : ''}. ${llm}`,
  ].join('\n');
}

/**
 * The paper's Table 1 beside ours: its figure for each of our rows it has one for, with the
 * backbone; where it has none we hold (WebShop and ALFWorld), a footnote that says so and gives
 * the figures we do hold.
 */
export function paperReferenceNote(result: Pick<DemoResult, 'env' | 'rows'>): string {
  const figures = result.rows.flatMap((r) => {
    const figure = paperFigureFor(result.env, r.method);
    return figure
      ? [`${r.method}: ours ${formatRate(r.success)}, paper ${formatPaperFigure(figure)}`]
      : [];
  });
  if (figures.length > 0)
    return `The paper's Table 1 (${PAPER_CITATION}) for the same rows: ${figures.join('; ')}.`;
  const held = PAPER_TABLE_1.map((f) => `${f.method} ${formatPaperFigure(f)}`).join(', ');
  return `The paper's Table 1 (${PAPER_CITATION}) reports this benchmark with LLM policies; we hold no figure of it we could check against the paper, so none is shown. The figures we hold (${held}) are printed beside the web table.`;
}

/** Seconds as hours (or minutes below one hour). */
function hours(seconds: number): string {
  return seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : `${(seconds / 60).toFixed(1)} min`;
}

/**
 * Each row's held-out success in the synthetic env beside the real one (the first seed's), and
 * Kendall's τ between the two orderings per seed, with its bootstrap interval.
 */
export function rankTable(result: Pick<DemoResult, 'rows' | 'rankAgreement'>): string {
  const first = (r: DemoResult['rows'][number]) => r.seeds[0];
  const pct = (x: number | undefined) => (x === undefined ? '–' : `${(100 * x).toFixed(1)}%`);
  const table = [
    '| method | test tasks: real env | test tasks: synthetic env | offline tasks: real env | offline tasks: synthetic env |',
    '|---|---|---|---|---|',
    ...result.rows.map((r) => {
      const s = first(r);
      return `| ${r.method} | ${pct(s?.success.mean)} | ${pct(s?.synthetic?.mean)} | ${pct(s?.offlineTasks?.real.mean)} | ${pct(s?.offlineTasks?.synthetic.mean)} |`;
    }),
  ];
  const tau = (a: RankAgreement) =>
    `τ ${a.tau.toFixed(2)} [${a.low.toFixed(2)}, ${a.high.toFixed(2)}]`;
  const taus = result.rankAgreement.map(
    (a) => `seed ${a.seed}: test tasks ${tau(a)}, offline tasks ${tau(a.offlineTasks)}`,
  );
  return `${table.join('\n')}\n\nSuccess of each row's policy (the first seed's) on the held-out test tasks and on the offline episodes' own tasks (the synthetic env's ground), in the real env and in the synthetic env learnt from the offline data (frozen, nothing written back). Kendall's τ-b of the real and synthetic orderings over ${result.rows.length} rows, with a 95% bootstrap interval over the episodes: ${taus.join('; ')}.`;
}

/** Writes report.md and the plots (SVG and PNG) into `dir`; returns the report's path. */
export async function writeDemoReport(result: DemoResult, dir: string): Promise<string> {
  const points = result.rows.map((r) => ({
    method: r.method,
    realInteractions: r.realInteractions,
    success: r.success.mean,
    low: r.success.low,
    high: r.success.high,
  }));
  const spread = result.rows.flatMap((r) =>
    r.seeds.map((s) => ({
      method: r.method,
      seed: s.seed,
      realInteractions: s.realInteractions,
      success: s.success.mean,
    })),
  );
  const curves = result.rows.flatMap((r) => r.curve);
  const charts = [
    await renderChart(
      successVsRealSpec(
        points,
        `${result.env}: held-out success vs real interactions`,
        spread.length > points.length ? spread : [],
      ),
      join(dir, 'success-vs-real'),
    ),
  ];
  if (curves.length > 0)
    charts.push(
      await renderChart(
        learningCurveSpec(curves, `${result.env}: learning curves`),
        join(dir, 'learning-curves'),
      ),
    );
  const o = result.options;
  const report = `# DreamGym demo: ${result.env}

${demoTable(result)}

## Cost

${costTable(result)}

## Does the synthetic env rank the rows as the real one does?

${rankTable(result)}

## Notes

- Held-out: ${o.evalEpisodes} test tasks, one ${o.evalTemperature ? `episode sampled at temperature ${o.evalTemperature}` : 'greedy episode'} each, in the **real** env. Intervals: Wilson (success), ±1.96 standard errors (reward)${(o.seeds ?? 1) > 1 ? `; with ${o.seeds} seeds, the first interval is Student t across the seeds' rates (training noise), the per-seed ones are over test tasks (evaluation noise). The plot shows each seed as a small mark` : ''}.
- Offline data (every row may use it; not counted above): ${result.offlineTransitions.toLocaleString('en-US')} real transitions from ${o.offlineEpisodes} episodes of the scripted expert with ε = ${o.epsilon} (success ${(100 * result.offlineSuccessRate).toFixed(1)}%).
- Real-env RL may use B = ${o.realBudget.toLocaleString('en-US')} real steps; DreamGym-S2R continues DreamGym GRPO's policy with ${(o.smallBudget ?? Math.floor(o.realBudget / 10)).toLocaleString('en-US')} real steps, and real-env GRPO with that same small budget from the same start (no synthetic training) is its fair comparison. Evaluation episodes are not counted as training interactions.
${o.ablations && !result.rows.some((r) => r.method === '− reasoning') ? '- − reasoning does not apply: the LLM-free experience model does not reason (only the LLM experience model writes reasoning before its prediction; `dreamgym quality --model llm` measures that row).\n' : ''}${o.warmStart ? '- Every RL row starts from the BC policy (RL from random weights finds almost no reward in these episodes), so it is RL on top of BC.\n' : ''}${result.rows.some((r) => r.method === DPO_ROW) ? `- ${DPO_ROW} starts from the BC policy (its frozen reference) and learns from pairs of the offline states where the mistake-free scripted expert would have acted otherwise than the noisy one did (no env step; labels BC does not get). The offline data has one episode per task, so pairs from the data alone (a success and a failure in the same state) do not occur.\n` : ''}- DreamGym rows train only in the synthetic env of the experience model \`${result.experienceModel}\`, learnt from the offline data (it never reads the real env's catalog or code).
- ${o.ablations || o.coEvolve ? `DreamGym rows co-evolve as \`dreamgym run\` does: each writes its synthetic episodes back into a buffer of its own (the offline data and its episodes so far) and takes ${Math.round(100 * (o.realShare ?? DEFAULT_REAL_SHARE))}% of each step's demonstrations real, the rest from those episodes${o.ablations ? '; − co-evolution freezes the buffer at the offline data (no write-back, real demonstrations only, no refresh), and − retrieval has no buffer to grow' : ''}.` : 'DreamGym rows train on the buffer frozen at the offline data, with real demonstrations only (`--co-evolve` makes them write back as `dreamgym run` does; the ablation table measures what that changes).'}
- ${paperReferenceNote(result)}
- Seed${(o.seeds ?? 1) > 1 ? `s ${o.seed}…${o.seed + (o.seeds ?? 1) - 1}` : ` ${o.seed}`}. Trainer settings: \`${JSON.stringify(o.trainer)}\`; synthetic iterations ${o.syntheticIterations}.

![held-out success vs real interactions](success-vs-real.png)
${curves.length > 0 ? '\n![learning curves](learning-curves.png)\n' : ''}
Files: \`results.json\` (every number above), ${charts.map((c) => `\`${c.svg.split('/').at(-1)}\``).join(', ')} and their PNGs, \`buffer.db\` (the replay buffer).
`;
  const path = join(dir, 'report.md');
  await writeFile(path, report);
  return path;
}
