import type { PlayedShare } from '../curriculum/curriculum-report.ts';
import { acrossSeeds, mcnemarExact, pairedAcrossSeeds } from '../report/stats.ts';
import type { ReplayReport } from './fidelity.ts';
import { UNIFORM_GRPO_ROW, type WebDemoResult, type WebDemoRow } from './web-demo.ts';
import { methodKey, pairedWithBaseline } from './web-rows.ts';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** `12 / 30 true`, with the unreplayable ones named; `–` when nothing was sampled. */
function replayed(r: ReplayReport | undefined): string {
  if (!r || r.syntheticSuccesses + r.unreplayable === 0) return '–';
  const unreplayable = r.unreplayable > 0 ? ` (${r.unreplayable} unreplayable)` : '';
  return `${r.confirmed} / ${r.syntheticSuccesses} true${unreplayable}`;
}

const played = (p: PlayedShare) =>
  `${p.groups} groups, ${pct(p.informativeShare)} informative, ${pct(p.successRate)} synthetic success`;

/** One site of one seed: DreamGym GRPO with the curriculum, and without. */
interface Pair {
  site: string;
  seed: number;
  full: WebDemoRow;
  uniform: WebDemoRow;
}

function pairsOf(runs: readonly WebDemoResult[]): Pair[] {
  return runs.flatMap((run) => {
    const sites = [...new Set(run.rows.map((r) => r.site))];
    return sites.flatMap((site) => {
      const ofSite = run.rows.filter((r) => r.site === site);
      const full = ofSite.find((r) => methodKey(r.method) === 'DreamGym GRPO' && r.curriculum);
      const uniform = ofSite.find((r) => r.method === UNIFORM_GRPO_ROW);
      return full && uniform ? [{ site, seed: run.options.seed, full, uniform }] : [];
    });
  });
}

/**
 * The curriculum's effect, explained, for runs with the curriculum ablation (`demo --env web
 * --ablations`): per site and seed, held-out success of DreamGym GRPO with the curriculum and
 * without on the same tasks; what the curriculum played (groups of seed tasks and of its
 * variations, their informative share and synthetic success); the templates it played most; and
 * how many sampled synthetic successes of each origin held when replayed in the real browser.
 * Then, per site over the seeds, the mean difference with a paired interval. Empty when no run
 * has the ablation.
 */
export function webCurriculumReport(runs: readonly WebDemoResult[]): string[] {
  const pairs = pairsOf(runs);
  if (pairs.length === 0) return [];
  const lines = [
    'The curriculum, explained: DreamGym GRPO with the curriculum (variance-selected tasks and variations built from the buffer) against the same training without it (the seed tasks uniformly), on the same held-out tasks; what the curriculum played; and sampled synthetic successes replayed in the real browser (a variation on the real task of the same instruction, where the site has one):',
    '',
    '| site | seed | with curriculum | − curriculum | tasks only with / only without | informative groups, with / without | seed tasks played | variations played | most played templates (groups, of them variations) | replayed true, with: seed / variations | replayed true, without |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { site, seed, full, uniform } of pairs) {
    const stats = full.curriculum;
    const selection = stats?.selection;
    const paired = pairedWithBaseline(full, uniform);
    const split = paired ? `+${paired.better} / −${paired.worse}` : '–';
    const templates =
      selection?.templateMix
        .slice(0, 4)
        .map((t) => `${t.template} (${t.groups}, ${t.generated})`)
        .join(', ') ?? '–';
    lines.push(
      `| ${site} | ${seed} | ${pct(full.success.mean)} | ${pct(uniform.success.mean)} | ${split} | ${stats ? pct(stats.informativeShare) : '–'} / ${uniform.curriculum ? pct(uniform.curriculum.informativeShare) : '–'} | ${selection ? played(selection.played.seed) : '–'} | ${selection ? played(selection.played.generated) : '–'} | ${templates} | ${replayed(stats?.replay.seed)} / ${replayed(stats?.replay.generated)} | ${replayed(uniform.curriculum?.replay.seed)} |`,
    );
  }
  const sites = [...new Set(pairs.map((p) => p.site))];
  lines.push('');
  for (const site of sites) {
    const ofSite = pairs.filter((p) => p.site === site);
    const full = ofSite.map((p) => p.full.success.mean);
    const uniform = ofSite.map((p) => p.uniform.success.mean);
    let better = 0;
    let worse = 0;
    for (const p of ofSite) {
      const paired = pairedWithBaseline(p.full, p.uniform);
      better += paired?.better ?? 0;
      worse += paired?.worse ?? 0;
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const diff = ofSite.length > 1 ? pairedAcrossSeeds(full, uniform) : undefined;
    const interval = diff
      ? `, paired 95% CI across seeds [${points(diff.low)}, ${points(diff.high)}]`
      : '';
    const p = mcnemarExact(better, worse);
    const spread = ofSite.length > 1 ? acrossSeeds(full) : undefined;
    lines.push(
      `${site}, ${ofSite.length} seed${ofSite.length > 1 ? 's' : ''}: with the curriculum ${pct(mean(full))}${spread ? ` (${pct(spread.low)}–${pct(spread.high)})` : ''}, without ${pct(mean(uniform))}; difference ${points(mean(full) - mean(uniform))} points${interval}; tasks only with / only without +${better} / −${worse} (McNemar p ${p < 0.001 ? '< 0.001' : p.toFixed(3)}).`,
    );
  }
  return lines;
}
