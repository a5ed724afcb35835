import { describe, expect, it } from 'vitest';
import { LlmStats } from './stats.ts';

describe('LlmStats', () => {
  it('counts, prices tokens and summarises latency, adding into its parent', () => {
    const parent = new LlmStats();
    const a = new LlmStats(parent);
    const b = new LlmStats(parent);
    a.count('calls');
    a.count('retries');
    b.count('calls');
    a.addUsage(
      { promptTokens: 1_000, completionTokens: 500 },
      { promptPerMillion: 3, completionPerMillion: 15 },
    );
    b.addUsage({ promptTokens: 10, completionTokens: 10 });
    for (let ms = 1; ms <= 100; ms++) a.addLatency(ms);
    expect(a.snapshot()).toMatchObject({ calls: 1, retries: 1, promptTokens: 1_000 });
    expect(a.snapshot().costUsd).toBeCloseTo(0.003 + 0.0075, 12);
    expect(a.snapshot().latencyMs).toEqual({
      sum: 5050,
      mean: 50.5,
      p50: 51,
      p90: 91,
      p99: 100,
      max: 100,
    });
    expect(parent.snapshot()).toMatchObject({
      calls: 2,
      retries: 1,
      promptTokens: 1_010,
      completionTokens: 510,
    });
    a.reset();
    expect(a.snapshot()).toMatchObject({ calls: 0, costUsd: 0, latencyMs: { p50: 0 } });
    expect(parent.snapshot().calls).toBe(2);
  });
});
