import { describe, expect, it } from 'vitest';
import { wilson } from '../report/stats.ts';
import type { TaskOutcome, WebDemoResult, WebDemoRow } from './web-demo.ts';
import { webDemoReport } from './web-demo-report.ts';
import { pairedWithBaseline } from './web-rows.ts';

const kinds: Array<TaskOutcome['kind']> = ['information', 'information', 'navigation', 'change'];
function row(method: string, solved: number[], ids = ['t0', 't1', 't2', 't3']): WebDemoRow {
  return {
    site: 'web:forum',
    method,
    success: wilson(solved.length, ids.length),
    reward: wilson(solved.length, ids.length),
    outcomes: ids.map((taskId, i) => ({
      taskId,
      kind: kinds[i] as TaskOutcome['kind'],
      reward: solved.includes(i) ? 1 : 0,
    })),
    realInteractions: 0,
    syntheticInteractions: 0,
    seconds: 1,
  };
}

describe('webDemoReport', () => {
  const bc = row('BC (SFT on offline demos)', [0, 1]);
  const grpo = row('DreamGym GRPO (BC init, synthetic only)', [1, 2, 3]);

  it('pairs a row with BC task by task: tasks only it solved, only BC solved', () => {
    expect(pairedWithBaseline(grpo, bc)).toEqual({ better: 2, worse: 1, p: 1 });
    // Rows over other tasks cannot be paired.
    expect(pairedWithBaseline(row('x', [0], ['t0', 't1', 't2', 'tX']), bc)).toBeUndefined();
    expect(pairedWithBaseline(row('x', [0], ['t0']), bc)).toBeUndefined();
  });

  it('shows success by task kind and the pairing with BC for every other row', () => {
    const result: WebDemoResult = {
      rows: [bc, grpo],
      sites: [],
      options: {} as WebDemoResult['options'],
    };
    const report = webDemoReport(result);
    expect(report).toContain('| site | method | information | navigation | change | vs BC |');
    expect(report).toContain('| web:forum | BC | 2/2 (100%) | 0/1 (0%) | 0/1 (0%) | – |');
    expect(report).toContain(
      '| web:forum | DreamGym GRPO | 1/2 (50%) | 1/1 (100%) | 1/1 (100%) | +2 / −1 (p = 1.000) |',
    );
  });
});

describe("the web table's paper column", () => {
  it("prints the paper's WebArena-Lite figure beside the rows it has one for, with the backbone", () => {
    const rows = [
      row('BC (SFT on offline demos)', [0]),
      row('DreamGym PPO (BC init, synthetic only)', [0, 1]),
    ];
    const report = webDemoReport({ rows, sites: [], options: {} as WebDemoResult['options'] });
    expect(report).toContain('| web:forum | BC (SFT on offline demos) | 25.0% [4.6, 69.9] | – |');
    expect(report).toContain(
      '| DreamGym PPO (BC init, synthetic only) | 50.0% [15.0, 85.0] | 14.5% (Llama-3.2-3B-Instruct, WebArena-Lite) |',
    );
    expect(report).toContain('arXiv:2511.03773');
  });
});
