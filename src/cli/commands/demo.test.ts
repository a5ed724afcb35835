import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

describe('demo --experience', () => {
  it('trains the DreamGym rows in the model asked for, and the run says which', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-demo-experience-'));
    const run = await runCliInProcess([
      'demo',
      '--env',
      'webshop',
      '--experience',
      'generic',
      '--offline-episodes',
      '20',
      '--budget',
      '100',
      '--synthetic-iterations',
      '1',
      '--eval-episodes',
      '3',
      '--out',
      out,
    ]);
    expect(run.stderr).toContain('webshop: experience model llm-free/generic');
    expect(run.code).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(results.experienceModel).toBe('llm-free/generic');
    expect(results.options.experience).toBe('generic');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(
      'the synthetic env of the experience model `llm-free/generic`',
    );
  }, 120_000);

  it('refuses a model it does not know, naming the choices', async () => {
    const bad = await runCliInProcess(['demo', '--experience', 'handmade']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /--experience <model>.*expected one of auto, generic, nearest, got "handmade"/,
    );
  }, 60_000);
});
