import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

describe('dreamgym eval --breakdown', () => {
  it('prints where a policy departs from the expert, by decision kind', async () => {
    const run = await runCliInProcess([
      'eval',
      '--env',
      'webshop',
      '--policy',
      'random',
      '--episodes',
      '5',
      '--breakdown',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      failures?: number;
      breakdown: { episodes: number; failures: number; rows: { kind: string }[] };
    };
    expect(out.breakdown.episodes).toBe(5);
    expect(out.breakdown.rows.map((r) => r.kind)).toContain('search query');
  }, 120_000);
});
