import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from './config.ts';
import { runPipeline } from './run.ts';

describe('runPipeline before it starts', () => {
  const runDir = () => join(mkdtempSync(join(tmpdir(), 'dg-run-')), 'run');

  it('refuses an unknown env, leaving no run folder behind', async () => {
    const dir = runDir();
    await expect(runPipeline(parseRunConfig({ env: 'webshopp' }), dir)).rejects.toThrow(/webshopp/);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a missing offline data file, leaving no run folder behind', async () => {
    const dir = runDir();
    const config = parseRunConfig({ env: 'webshop', offline: { data: '/no/such/offline.jsonl' } });
    await expect(runPipeline(config, dir)).rejects.toThrow(
      /\/no\/such\/offline\.jsonl: no such trajectory file/,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
