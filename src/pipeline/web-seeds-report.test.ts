import { describe, expect, it } from 'vitest';
import { wilson } from '../report/stats.ts';
import type { TaskOutcome, WebDemoResult, WebDemoRow } from './web-demo.ts';
import type { WebSeedsResult } from './web-demo-seeds.ts';
import { methodKey } from './web-rows.ts';
import { headlineComparison, webSeedsReport } from './web-seeds-report.ts';

const TASKS = 10;
const kindOf = (i: number): TaskOutcome['kind'] => (i < 5 ? 'information' : 'change');

/** A row solving the held-out tasks whose places are listed, of ten. */
function row(method: string, solved: number[]): WebDemoRow {
  return {
    site: 'web:store',
    method,
    success: wilson(solved.length, TASKS),
    reward: wilson(solved.length, TASKS),
    outcomes: Array.from({ length: TASKS }, (_, i) => ({
      taskId: `t${i}`,
      kind: kindOf(i),
      reward: solved.includes(i) ? 1 : 0,
    })),
    realInteractions: 0,
    syntheticInteractions: 0,
    seconds: 1,
  };
}

const run = (rows: WebDemoRow[]): WebDemoResult => ({
  rows,
  sites: [],
  options: { evalEpisodes: TASKS } as WebDemoResult['options'],
});

// Seed 0: BC 2, DPO 3, real RL 2 (its budget in its name differs by seed), GRPO 4.
// Seed 1: BC 2, DPO 3, real RL 3, GRPO 3.
const result: WebSeedsResult = {
  seeds: [0, 1],
  runs: [
    run([
      row('BC (SFT on offline demos)', [0, 1]),
      row('DPO (expert-labelled offline pairs, from BC)', [0, 1, 2]),
      row('real RL, if it were possible (GRPO, BC init, 600 real steps = same wall time)', [0, 1]),
      row('DreamGym GRPO (BC init, synthetic only)', [0, 1, 3, 4]),
    ]),
    run([
      row('BC (SFT on offline demos)', [0, 5]),
      row('DPO (expert-labelled offline pairs, from BC)', [0, 5, 6]),
      row(
        'real RL, if it were possible (GRPO, BC init, 700 real steps = same wall time)',
        [0, 5, 7],
      ),
      row('DreamGym GRPO (BC init, synthetic only)', [0, 5, 6]),
    ]),
  ],
};

describe('the web table across seeds', () => {
  it('names a method without its parenthesis, so rows pair across seeds', () => {
    expect(methodKey('real RL, if it were possible (GRPO, BC init, 600 real steps)')).toBe(
      'real RL, if it were possible',
    );
    expect(methodKey('DreamGym GRPO (BC init, synthetic only)')).toBe('DreamGym GRPO');
  });

  it('shows each seed, the mean with its interval across seeds, and pairs real RL over seeds', () => {
    const report = webSeedsReport(result);
    expect(report).toContain('| web:store | BC | 20.0% | 20.0% | 20.0% [20.0, 20.0] | – |');
    expect(report).toContain(
      '| web:store | real RL, if it were possible | 20.0% | 30.0% | 25.0% [',
    );
    expect(report).toContain('| web:store | DreamGym GRPO | 40.0% | 30.0% | 35.0% [');
    // Pooled by kind: GRPO solved 0, 1, 3, 4 and 0 (information), 5, 6 (change) of 10 each.
    expect(report).toContain('| web:store | DreamGym GRPO | 5/10 (50%) | 2/10 (20%) |');
  });

  it('holds DreamGym against the best baseline: ratio, paired difference, pooled tasks', () => {
    const [header, , line] = headlineComparison(result);
    expect(header).toContain('≥ 1.3×');
    // DPO (30% both seeds) beats real RL (25%) and BC (20%): GRPO's 35% is 1.17× it.
    // Differences +10 and 0 points: mean +5, t(1) = 12.706, sd √50 points → ± 63.5 points.
    // Tasks: seed 0 GRPO alone 3, 4, DPO alone 2; seed 1 none apart.
    expect(line).toBe(
      '| web:store | DreamGym GRPO | DPO | 35.0% vs 30.0% | 1.17× | 1.33×, 1.00× | +5.0 [−58.5, +68.5] | +2 / −1 (1.000) | no |',
    );
  });

  it("keeps a row a seed lacks in its seed's column, and out of the comparison", () => {
    const [first, second] = result.runs as [WebDemoResult, WebDemoResult];
    const gap: WebSeedsResult = {
      seeds: [0, 1],
      runs: [{ ...first, rows: first.rows.filter((r) => !r.method.startsWith('real RL')) }, second],
    };
    expect(webSeedsReport(gap)).toContain(
      '| web:store | real RL, if it were possible | – | 30.0% |',
    );
    // Real RL (30% on seed 1 only) is no baseline here; DPO (30%) is the best one.
    expect(headlineComparison(gap)[2]).toContain('| DreamGym GRPO | DPO | 35.0% vs 30.0% |');
  });
});
