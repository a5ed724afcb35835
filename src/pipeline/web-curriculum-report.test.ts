import { describe, expect, it } from 'vitest';
import type { CurriculumReport } from '../curriculum/curriculum-report.ts';
import { wilson } from '../report/stats.ts';
import type { ReplayReport } from './fidelity.ts';
import { webCurriculumReport } from './web-curriculum-report.ts';
import {
  UNIFORM_GRPO_ROW,
  type WebCurriculumStats,
  type WebDemoResult,
  type WebDemoRow,
} from './web-demo.ts';

const ids = ['t0', 't1', 't2', 't3', 't4'];
function row(method: string, solved: number[], curriculum?: WebCurriculumStats): WebDemoRow {
  return {
    site: 'web:store',
    method,
    success: wilson(solved.length, ids.length),
    reward: wilson(solved.length, ids.length),
    outcomes: ids.map((taskId, i) => ({
      taskId,
      kind: 'information',
      reward: solved.includes(i) ? 1 : 0,
    })),
    realInteractions: 0,
    syntheticInteractions: 100,
    seconds: 1,
    ...(curriculum && { curriculum }),
  };
}

const replay = (successes: number, confirmed: number, unreplayable = 0): ReplayReport => ({
  episodes: successes,
  syntheticSuccesses: successes,
  confirmed,
  falsePositiveShare: successes ? 1 - confirmed / successes : 0,
  missed: 0,
  generated: 0,
  unreplayable,
});

const selection: CurriculumReport = {
  iterations: [],
  generatedTasks: 6,
  played: {
    seed: { groups: 30, informativeShare: 0.5, successRate: 0.4 },
    generated: { groups: 10, informativeShare: 0.7, successRate: 0.6 },
  },
  templateMix: [
    { template: '18', groups: 12, generated: 4 },
    { template: '7', groups: 9, generated: 0 },
  ],
  warnings: 0,
};

function run(seed: number, full: number[], uniform: number[]): WebDemoResult {
  return {
    rows: [
      row('BC (SFT on offline demos)', [0]),
      row('DreamGym GRPO (BC init, synthetic only)', full, {
        informativeShare: 0.6,
        selection,
        replay: { seed: replay(10, 4), generated: replay(5, 1, 4) },
      }),
      row(UNIFORM_GRPO_ROW, uniform, {
        informativeShare: 0.55,
        replay: { seed: replay(10, 3), generated: replay(0, 0) },
      }),
    ],
    sites: [],
    options: { seed } as WebDemoResult['options'],
  };
}

describe('webCurriculumReport', () => {
  it('pairs GRPO with and without the curriculum per seed, with what the curriculum played and what held', () => {
    const lines = webCurriculumReport([run(0, [0, 1, 2], [0, 1]), run(1, [0], [0, 3])]);
    expect(lines).toContain(
      '| web:store | 0 | 60.0% | 40.0% | +1 / −0 | 60.0% / 55.0% | 30 groups, 50.0% informative, 40.0% synthetic success | 10 groups, 70.0% informative, 60.0% synthetic success | 18 (12, 4), 7 (9, 0) | 4 / 10 true / 1 / 5 true (4 unreplayable) | 3 / 10 true |',
    );
    expect(lines.some((l) => l.startsWith('| web:store | 1 | 20.0% | 40.0% | +0 / −1 |'))).toBe(
      true,
    );
    // Over the seeds: mean 40.0% against 40.0%, tasks only with / only without 1 / 1.
    const summary = lines.find((l) => l.startsWith('web:store, 2 seeds'));
    expect(summary).toContain('with the curriculum 40.0%');
    expect(summary).toContain('without 40.0%; difference +0.0 points');
    expect(summary).toContain('+1 / −1 (McNemar p 1.000)');
  });

  it('says nothing for runs without the ablation', () => {
    const plain = run(0, [0], [0]);
    plain.rows = plain.rows.filter((r) => r.method !== UNIFORM_GRPO_ROW);
    expect(webCurriculumReport([plain])).toEqual([]);
  });
});
