import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/testing/run-cli.ts';

describe('dreamgym fidelity', () => {
  it('compares household envs free-running with the explorer, which sees only what agents see', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-fidelity-'));
    const run = await runCli([
      'fidelity',
      '--env',
      'household',
      '--episodes',
      '6',
      '--offline-episodes',
      '30',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const report = readFileSync(join(out, 'fidelity.md'), 'utf8');
    expect(report).toContain('## Free-running (household-explorer(eps=0.3)');
    const json = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8'));
    expect(json.freeRunning.episodes).toBe(6);
    // The explorer can play both envs (the scene-reading expert could not play a synthetic room).
    expect(json.freeRunning.real.successRate).toBeGreaterThan(0);
    expect(json.freeRunning.synthetic.successRate).toBeGreaterThan(0);
    expect(json.teacherForced.transitions).toBeGreaterThan(6);
  }, 60_000);

  it('names the policies that can play an env when asked for one that cannot', async () => {
    const run = await runCli(['fidelity', '--env', 'webshop', '--free-policy', 'explorer']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/explorer policy plays household envs.*use expert, random or llm/);
  });
});
