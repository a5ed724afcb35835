import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WEB_TASK_KINDS } from '../envs/web/webarena/task-kind.ts';
import { formatPaperFigure, PAPER_CITATION, paperFigureFor } from '../report/paper-reference.ts';
import { acrossSeeds, formatRate, mcnemarExact, pairedAcrossSeeds } from '../report/stats.ts';
import { webCurriculumReport } from './web-curriculum-report.ts';
import type { WebDemoRow } from './web-demo.ts';
import type { WebSeedsResult } from './web-demo-seeds.ts';
import { methodKey, pairedWithBaseline, share } from './web-rows.ts';

/** The paper's headline bar: DreamGym over the best baseline where real RL is infeasible. */
export const WEB_HEADLINE_RATIO = 1.3;

/** The baselines DreamGym is held against: offline (BC, DPO) and real-env RL at the same wall time. */
const BASELINES = ['BC', 'DPO', 'real RL, if it were possible'];

/** One method of one site over every seed. */
interface MethodSeeds {
  site: string;
  key: string;
  /** The first seed's full method name (the real-RL row's budget differs by seed). */
  method: string;
  /** Its row in each seed's run, in seed order; undefined where that run lacks it. */
  bySeed: Array<WebDemoRow | undefined>;
}

function methodsOf(result: WebSeedsResult): MethodSeeds[] {
  const methods = new Map<string, MethodSeeds>();
  result.runs.forEach((run, i) => {
    for (const row of run.rows) {
      const key = methodKey(row.method);
      const id = `${row.site}\u0000${key}`;
      const m = methods.get(id) ?? {
        site: row.site,
        key,
        method: row.method,
        bySeed: result.runs.map(() => undefined),
      };
      m.bySeed[i] = row;
      methods.set(id, m);
    }
  });
  return [...methods.values()];
}

/** The seeds' success rates, of the seeds that have the row. */
const ratesOf = (m: MethodSeeds): number[] =>
  m.bySeed.flatMap((row) => (row ? [row.success.mean] : []));

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');

/**
 * Each DreamGym row of a site against the site's best baseline (highest mean over the seeds of
 * BC, DPO and real RL): the ratio of the means, each seed's ratio, the paired difference across
 * seeds with its t interval, and the held-out tasks only one of the two solved, pooled over seeds
 * (task × seed pairs, McNemar's exact p).
 */
export function headlineComparison(result: WebSeedsResult): string[] {
  const methods = methodsOf(result);
  const sites = [...new Set(methods.map((m) => m.site))];
  const lines = [
    `| site | method | best baseline | mean against it | ratio | per seed | difference, paired [95% CI across seeds] | tasks only it / only the baseline solved, all seeds (McNemar p) | ≥ ${WEB_HEADLINE_RATIO}× |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const site of sites) {
    // Only methods every seed has: the comparison pairs them seed by seed.
    const ofSite = methods.filter((m) => m.site === site && m.bySeed.every((r) => r !== undefined));
    const mean = (m: MethodSeeds) => ratesOf(m).reduce((s, x) => s + x, 0) / m.bySeed.length;
    const best = ofSite
      .filter((m) => BASELINES.includes(m.key))
      .sort((a, b) => mean(b) - mean(a))[0];
    if (!best) continue;
    for (const dream of ofSite.filter((m) => m.key.startsWith('DreamGym'))) {
      const [ours, theirs] = [ratesOf(dream), ratesOf(best)];
      const diff = pairedAcrossSeeds(ours, theirs);
      let better = 0;
      let worse = 0;
      dream.bySeed.forEach((row, i) => {
        const paired = pairedWithBaseline(row as WebDemoRow, best.bySeed[i] as WebDemoRow);
        better += paired?.better ?? 0;
        worse += paired?.worse ?? 0;
      });
      const p = mcnemarExact(better, worse);
      const perSeed = ours.map((r, i) => ratio(r, theirs[i] as number)).join(', ');
      lines.push(
        `| ${site} | ${dream.key} | ${best.key} | ${pct(mean(dream))} vs ${pct(mean(best))} | ${ratio(mean(dream), mean(best))} | ${perSeed} | ${points(diff.mean)} [${points(diff.low)}, ${points(diff.high)}] | +${better} / −${worse} (${p < 0.001 ? '< 0.001' : p.toFixed(3)}) | ${mean(dream) >= WEB_HEADLINE_RATIO * mean(best) ? 'yes' : 'no'} |`,
      );
    }
  }
  return lines;
}

/**
 * The web table across seeds in markdown: every row's held-out success per seed and the mean with
 * a Student-t interval across seeds (and the paper's Table 1 figure where it has one); then each
 * DreamGym row against the best baseline ({@link headlineComparison}); then success by task kind
 * pooled over seeds. Each seed's own report is in its `seed-<n>` folder.
 */
export function webSeedsReport(result: WebSeedsResult): string {
  const methods = methodsOf(result);
  const seedCols = result.seeds.map((s) => `seed ${s}`);
  const kinds = [...WEB_TASK_KINDS, 'other' as const].filter((k) =>
    methods.some((m) => m.bySeed.some((r) => r?.outcomes.some((o) => o.kind === k))),
  );
  const tasks = result.runs[0]?.options.evalEpisodes ?? 0;
  const curriculum = webCurriculumReport(result.runs);
  const lines = [
    `Held-out success in the real browser, ${tasks} test tasks a site, seeds ${result.seeds.join(', ')}; mean with a 95% Student-t interval across seeds:`,
    '',
    `| site | method | ${seedCols.join(' | ')} | mean [95% CI across seeds] | paper, Table 1 |`,
    `|---|---|${seedCols.map(() => '---|').join('')}---|---|`,
    ...methods.map((m) => {
      const cells = result.runs.map((_, i) => {
        const row = m.bySeed[i];
        return row ? pct(row.success.mean) : '–';
      });
      return `| ${m.site} | ${m.key} | ${cells.join(' | ')} | ${formatRate(acrossSeeds(ratesOf(m)))} | ${formatPaperFigure(paperFigureFor(m.site, m.method))} |`;
    }),
    '',
    `"paper, Table 1": the success rate ${PAPER_CITATION} reports for the same method on WebArena-Lite with an LLM policy (the backbone named), for reference only. Real RL trains in the real browser with the real steps DreamGym GRPO's training time bought on the same seed (the paper's regime has no real RL; ours shows what it would give).`,
    '',
    `DreamGym against the best baseline of the site (the highest mean of BC, DPO and real RL); the paper's claim is over ${WEB_HEADLINE_RATIO}× every baseline:`,
    '',
    ...headlineComparison(result),
    '',
    'Held-out tasks solved by kind, all seeds together:',
    '',
    `| site | method | ${kinds.join(' | ')} |`,
    `|---|---|${kinds.map(() => '---|').join('')}`,
    ...methods.map(
      (m) =>
        `| ${m.site} | ${m.key} | ${kinds.map((k) => share(m.bySeed.flatMap((r) => r?.outcomes.filter((o) => o.kind === k) ?? []))).join(' | ')} |`,
    ),
    ...(curriculum.length > 0 ? ['', ...curriculum] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes {@link webSeedsReport} to `outDir/report.md`; returns its path. */
export async function writeWebSeedsReport(result: WebSeedsResult, outDir: string): Promise<string> {
  const path = join(outDir, 'report.md');
  await writeFile(path, webSeedsReport(result));
  return path;
}
