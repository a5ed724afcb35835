import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../../scripts/dreamgym-dev.js');
const dreamgym = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000 });

describe('dreamgym eval --breakdown', () => {
  it('prints where a policy departs from the expert, by decision kind', () => {
    const run = dreamgym([
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
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout) as {
      failures?: number;
      breakdown: { episodes: number; failures: number; rows: { kind: string }[] };
    };
    expect(out.breakdown.episodes).toBe(5);
    expect(out.breakdown.rows.map((r) => r.kind)).toContain('search query');
  }, 120_000);
});
