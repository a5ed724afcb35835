import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WEB_TASK_KINDS } from '../envs/web/webarena/task-kind.ts';
import { formatPaperFigure, PAPER_CITATION, paperFigureFor } from '../report/paper-reference.ts';
import { formatRate } from '../report/stats.ts';
import { webCurriculumReport } from './web-curriculum-report.ts';
import type { WebDemoResult } from './web-demo.ts';
import { methodKey, pairedWithBaseline, share } from './web-rows.ts';

/** The row every trained row is compared with, task by task. */
const BASELINE = /^BC\b/;

/**
 * The web table in markdown, with the paper's Table 1 figure for each row it has one for; then,
 * per site and method, success by task kind (WebArena's:
 * information, navigation, change) and the paired comparison with BC on the same held-out tasks;
 * then the offline data and the step-time ratio per site.
 */
export function webDemoReport(result: WebDemoResult): string {
  const kinds = [...WEB_TASK_KINDS, 'other' as const].filter((k) =>
    result.rows.some((r) => r.outcomes.some((o) => o.kind === k)),
  );
  const byKind = result.rows.map((r) => {
    const baseline = result.rows.find((b) => b.site === r.site && BASELINE.test(b.method));
    const paired = baseline && baseline !== r ? pairedWithBaseline(r, baseline) : undefined;
    const versus = paired
      ? `+${paired.better} / −${paired.worse} (p = ${paired.p < 0.001 ? '< 0.001' : paired.p.toFixed(3)})`
      : '–';
    const cells = kinds.map((k) => share(r.outcomes.filter((o) => o.kind === k)));
    return `| ${r.site} | ${methodKey(r.method)} | ${cells.join(' | ')} | ${versus} |`;
  });
  const lines = [
    '| site | method | held-out success [95% CI] | paper, Table 1 | mean reward | real interactions (training) | synthetic interactions | training time |',
    '|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.site} | ${r.method} | ${formatRate(r.success)} | ${formatPaperFigure(paperFigureFor(r.site, r.method))} | ${r.reward.mean.toFixed(3)} | ${r.realInteractions.toLocaleString('en-US')} | ${r.syntheticInteractions.toLocaleString('en-US')} | ${r.seconds.toFixed(0)} s |`,
    ),
    '',
    `"paper, Table 1": the success rate ${PAPER_CITATION} reports for the same method on WebArena-Lite with an LLM policy (the backbone named), for reference: another benchmark, policy and scale than ours; – where we hold no figure of the paper's that we could check.`,
    '',
    'Held-out tasks solved by kind, and against BC on the same tasks (tasks only this row solved / only BC solved; McNemar exact p):',
    '',
    `| site | method | ${kinds.join(' | ')} | vs BC |`,
    `|---|---|${kinds.map(() => '---|').join('')}---|`,
    ...byKind,
    '',
    ...withBlank(webCurriculumReport([result])),
    ...result.sites.map(
      (s) =>
        `${s.site}: offline data ${s.offlineTransitions} real transitions (${(100 * s.offlineSuccessRate).toFixed(0)}% of episodes successful); RL rows trained on ${s.rlTasks} tasks${result.options.experience && result.options.experience !== 'auto' ? ` in the synthetic env of the ${result.options.experience} LLM-free experience model` : ''}; a real browser step took ${s.realStepMs.toFixed(0)} ms, a synthetic step ${s.syntheticStepMs.toFixed(1)} ms (${(s.realStepMs / Math.max(1e-9, s.syntheticStepMs)).toFixed(0)}× faster).`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** `lines` and a blank line after them, or nothing. */
export const withBlank = (lines: readonly string[]): string[] =>
  lines.length > 0 ? [...lines, ''] : [];

/** Writes {@link webDemoReport} to `outDir/report.md`; returns its path. */
export async function writeWebDemoReport(result: WebDemoResult, outDir: string): Promise<string> {
  const path = join(outDir, 'report.md');
  await writeFile(path, webDemoReport(result));
  return path;
}
