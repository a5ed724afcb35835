import { describe, expect, it } from 'vitest';
import { type Estimate, wilson } from '../report/stats.ts';
import type { DemoResult, SeedRow } from './demo.ts';
import { costTable, paperReferenceNote, rankTable } from './demo-report.ts';

const estimate: Estimate = { mean: 0.5, low: 0.4, high: 0.6, n: 100 };

function row(method: string, real: number, synthetic: number, seconds: number[]) {
  const seeds: SeedRow[] = seconds.map((s, seed) => ({
    seed,
    success: estimate,
    reward: estimate,
    realInteractions: real,
    syntheticInteractions: synthetic,
    seconds: s,
    curve: [],
  }));
  return {
    method,
    success: estimate,
    reward: estimate,
    realInteractions: real,
    syntheticInteractions: synthetic,
    seconds: seconds.reduce((a, b) => a + b, 0),
    curve: [],
    seeds,
  };
}

function result(options: Partial<DemoResult['options']>, llmCalls = 0): DemoResult {
  return {
    env: 'webshop',
    offlineTransitions: 100,
    offlineSuccessRate: 0.5,
    experienceModel: 'llm-free/webshop',
    rows: [
      row('untrained policy', 0, 0, [1, 1]),
      row('GRPO (real, B = 20000)', 20_000, 0, [40, 60]),
      row('DreamGym GRPO (synthetic only)', 0, 25_000, [100, 100]),
    ],
    rankAgreement: [
      {
        seed: 0,
        tau: 0.8,
        low: 0.6,
        high: 1,
        policies: 3,
        resamples: 2000,
        defined: 2000,
        offlineTasks: { tau: 1, low: 1, high: 1, policies: 3, resamples: 2000, defined: 2000 },
      },
    ],
    llm: { calls: llmCalls, promptTokens: 3 * llmCalls, completionTokens: llmCalls, costUsd: 0.5 },
    options: {
      env: 'webshop',
      seed: 0,
      offlineEpisodes: 10,
      epsilon: 0.3,
      realBudget: 20_000,
      syntheticIterations: 1,
      trainer: {},
      evalEpisodes: 10,
      outDir: '/tmp/x',
      ...options,
    },
  };
}

describe('the demo cost table', () => {
  it('puts real and synthetic training side by side, per seed and per 1,000 transitions', () => {
    const table = costTable(result({}));
    expect(table).not.toContain('untrained'); // nothing trained, nothing to cost
    // 50 s a seed over 20,000 real steps: 2.5 s per 1,000; 100 s over 25,000 synthetic: 4.0 s.
    expect(table).toContain('| GRPO (real, B = 20000) | 20,000 | 0 | 50 s | 2.5 s |');
    expect(table).toContain('| DreamGym GRPO (synthetic only) | 0 | 25,000 | 100 s | 4.0 s |');
    expect(table).toContain('LLM calls: none');
    // A markdown table: its rule has one cell per header cell.
    const [header, rule] = table.split('\n');
    expect(header?.split('|').length).toBe(7);
    expect(rule).toBe('|---|---|---|---|---|');
  });

  it('prices the real steps where the real env is not ours to measure, and the LLM calls', () => {
    const table = costTable(result({ realStepSeconds: 3, realStepCost: 0.01 }, 40));
    expect(table).toContain('real-env time at 3 s a step | real-env cost at 0.01 a step |');
    expect(table.split('\n')[1]).toBe('|---|---|---|---|---|---|---|');
    // 20,000 real steps at 3 s = 16.7 h and 200.00; the synthetic-only row needs none.
    expect(table).toContain('| 2.5 s | 16.7 h | 200.00 |');
    expect(table).toContain('| 4.0 s | 0.0 min | 0.00 |');
    expect(table).toContain('LLM calls: 40, 120 prompt and 40 completion tokens, $0.50');
  });
});

describe("the demo report's paper reference", () => {
  it("says the paper's WebShop figures are not held, and names the ones that are", () => {
    const note = paperReferenceNote(result({}));
    expect(note).toContain('arXiv:2511.03773');
    expect(note).toContain('we hold no figure of it');
    expect(note).toContain('DreamGym GRPO 13.3% (Llama-3.2-3B-Instruct, WebArena-Lite)');
  });

  it("sets the paper's figure beside ours for a row it has one for", () => {
    const web = { ...result({}), env: 'web:store' };
    expect(paperReferenceNote(web)).toContain(
      'DreamGym GRPO (synthetic only): ours 50.0% [40.0, 60.0], paper 13.3% (Llama-3.2-3B-Instruct, WebArena-Lite)',
    );
  });
});

describe('rankTable', () => {
  it("sets each row's synthetic success beside its real one and gives each seed's τ", () => {
    const base = result({});
    const rows = base.rows.map((r, i) => ({
      ...r,
      seeds: r.seeds.map((s) => ({
        ...s,
        synthetic: wilson(10 * (i + 1), 100),
        offlineTasks: { real: wilson(30, 100), synthetic: wilson(40, 100) },
      })),
    }));
    const text = rankTable({ ...base, rows });
    expect(text).toContain('| GRPO (real, B = 20000) | 50.0% | 20.0% | 30.0% | 40.0% |');
    expect(text).toContain(
      'seed 0: test tasks τ 0.80 [0.60, 1.00], offline tasks τ 1.00 [1.00, 1.00]',
    );
    expect(text).toContain('over 3 rows');
  });
});
