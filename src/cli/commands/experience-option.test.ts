import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticEntry } from '../../experience/synthetic-entry.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../../replay/testing/fixtures.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

describe('--experience', () => {
  it('picks the LLM-free model on fidelity: generic even for webshop, which has a hand-written one; nearest', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dreamgym-experience-'));
    const run = await runCliInProcess([
      'fidelity',
      '--env',
      'webshop',
      '--experience',
      'generic',
      '--episodes',
      '4',
      '--offline-episodes',
      '30',
      '--out',
      out,
    ]);
    expect(run.stderr).toContain('model llm-free/generic');
    expect(run.code).toBe(0);
    const json = JSON.parse(readFileSync(join(out, 'fidelity.json'), 'utf8'));
    expect(json.model).toBe('llm-free/generic');
    const nearest = await runCliInProcess([
      'fidelity',
      '--env',
      'support-desk',
      '--experience',
      'nearest',
      '--episodes',
      '3',
      '--offline-episodes',
      '20',
      '--out',
      join(out, 'nearest'),
    ]);
    expect(nearest.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'nearest', 'fidelity.json'), 'utf8')).model).toBe(
      'llm-free/nearest-neighbor',
    );
  }, 120_000);

  it('refuses a model it does not know, naming the choices, on every command that takes it', async () => {
    for (const command of ['fidelity', 'quality', 'scaling']) {
      const run = await runCliInProcess([command, '--experience', 'handmade']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /--experience <model>.*expected one of auto, generic, nearest, got "handmade"/,
      );
    }
    // serve's --experience also takes llm (and llm-free, the same as auto).
    const serve = await runCliInProcess([
      'serve',
      '--env',
      'synthetic:webshop',
      '--experience',
      'handmade',
    ]);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(
      'unknown --experience "handmade"; use llm, llm-free or one of auto, generic, nearest.',
    );
  }, 60_000);

  it('refuses --experience beside --model llm, which it does not apply to', async () => {
    const run = await runCliInProcess([
      'fidelity',
      '--model',
      'llm',
      '--experience',
      'generic',
      '--llm-url',
      'http://127.0.0.1:1/v1',
      '--llm-model',
      'm',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--experience picks the LLM-free model');
  }, 60_000);

  it('reaches a served synthetic env (serve --experience generic)', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'dreamgym-experience-serve-')), 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path: db });
    await buffer.add(await webshopTrajectories(20));
    await buffer.close();
    for (const [experience, id] of [
      ['generic', 'llm-free/generic'],
      ['nearest', 'llm-free/nearest-neighbor'],
    ] as const) {
      const entry = await syntheticEntry('synthetic:webshop', { db, experience });
      expect(entry.description).toContain(`LLM-free experience model ${id} over`);
      await entry.close();
    }
  }, 60_000);
});
