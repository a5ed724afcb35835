import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli.ts';

describe('dreamgym quality', () => {
  it('writes the table, the JSON and the plot for household', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-quality-'));
    const run = await runCli([
      'quality',
      '--env',
      'household',
      '--tasks',
      '3',
      '--group-size',
      '2',
      '--offline-episodes',
      '30',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'quality.json'), 'utf8'));
    expect(json.rows).toHaveLength(4);
    expect(json.rows[0].proxies.consistency.mean).toBe(1);
    expect(readFileSync(join(out, 'quality.md'), 'utf8')).toContain('| − retrieval |');
    expect(statSync(join(out, 'quality.png')).size).toBeGreaterThan(1000);
  }, 120_000);

  it('names the envs with a lens, and asks for both judge flags', async () => {
    const lens = await runCli(['quality', '--env', 'web:forum']);
    expect(lens.code).not.toBe(0);
    expect(lens.stderr).toMatch(/webshop and household.*"web:forum" has no lens/);
    const judge = await runCli(['quality', '--judge-url', 'http://127.0.0.1:1/v1']);
    expect(judge.code).not.toBe(0);
    expect(judge.stderr).toMatch(/--judge-url and --judge-model/);
  });
});
