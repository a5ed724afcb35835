import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type MetricPoint, metricBarsSpec, renderChart } from '../../report/plots.ts';
import type { Estimate } from '../../report/stats.ts';
import { CRITERIA } from './judge.ts';
import type { QualityResult } from './quality.ts';

const ci = (e: Estimate, digits = 3) =>
  e.n === 0
    ? 'n/a'
    : `${e.mean.toFixed(digits)} [${e.low.toFixed(digits)}, ${e.high.toFixed(digits)}]`;

/** The proxies (and the judge's scores, when there was a judge) as a markdown table. */
export function qualityTable(result: QualityResult): string {
  const judged = result.rows.some((r) => r.judge);
  const header = [
    'experience from',
    'consistency',
    'distinct states / task',
    'distinct episodes / task',
    'distinct states, all tasks',
    'reward variance',
    'informative groups',
    'hallucinated entities',
    'success',
    ...(judged ? CRITERIA.map((c) => `judge: ${c}`) : []),
  ];
  const lines = result.rows.map((r) => {
    const p = r.proxies;
    const cells = [
      r.name,
      `${ci(p.consistency)} (${p.consistency.units} checks)`,
      ci(p.distinctStates),
      ci(p.distinctTrajectories),
      p.distinctStatesAcrossTasks.toFixed(3),
      ci(p.rewardVariance),
      ci(p.informativeGroups, 2),
      `${ci(p.hallucination)} (${p.hallucination.units} entities)`,
      `${(100 * r.successRate).toFixed(1)}%`,
      ...(judged ? CRITERIA.map((c) => (r.judge ? ci(r.judge.scores[c], 2) : '–')) : []),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines].join(
    '\n',
  );
}

/** Writes quality.json, quality.md and quality.svg/png into `dir`; returns the report's path. */
export async function writeQualityReport(result: QualityResult, dir: string): Promise<string> {
  await writeFile(join(dir, 'quality.json'), `${JSON.stringify(result, null, 2)}\n`);
  const points: MetricPoint[] = result.rows.flatMap((r) => {
    const p = r.proxies;
    const at = (metric: string, e: Estimate): MetricPoint[] =>
      e.n === 0 ? [] : [{ source: r.name, metric, value: e.mean, low: e.low, high: e.high }];
    return [
      ...at('consistency', p.consistency),
      ...at('distinct states / task', p.distinctStates),
      ...at('distinct episodes / task', p.distinctTrajectories),
      ...at('informative groups', p.informativeGroups),
      ...at('hallucinated entities', p.hallucination),
    ];
  });
  await renderChart(
    metricBarsSpec(points, `${result.env}: quality of experience (${result.model})`),
    join(dir, 'quality'),
  );
  const judge = result.judge
    ? `\nJudge: ${result.judge.llm}, ${result.judge.promptTokens.toLocaleString('en-US')} prompt and ${result.judge.completionTokens.toLocaleString('en-US')} completion tokens${result.judge.costUsd > 0 ? `, $${result.judge.costUsd.toFixed(4)}` : ''}; scores 1–5 (5 best) per task group, mean with a 95% interval over the judged groups.\n`
    : '';
  const markdown = `# Experience quality: ${result.env}, ${result.model}

${qualityTable(result)}

- Policy ${result.policy}, the same in every row; ${result.tasks} held-out tasks (none in the offline data) × ${result.groupSize} episodes each. Buffer: ${result.offlineEpisodes} offline real episodes, ${result.vocabulary.toLocaleString('en-US')} distinct entities.
- − retrieval: ${result.retrievalAblation}.
- − reasoning: ${result.reasoningAblation}.
- Each value is the mean over task groups with a 95% normal interval over groups; definitions in docs/quality.md.
- The real env is the reference, not a candidate: its consistency must be 1 (a check of the proxy), and its "hallucinated" entities are real products, objects or page items the buffer never showed — the rate a faithful model facing unseen tasks would show.
${judge}
![quality](quality.png)
`;
  const path = join(dir, 'quality.md');
  await writeFile(path, markdown);
  return path;
}
