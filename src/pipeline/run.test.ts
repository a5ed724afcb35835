import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
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

describe('runPipeline co-evolves by default', () => {
  it('writes its synthetic episodes back to the buffer; writeBack: false leaves none', async () => {
    const synthetic = async (experienceModel: object) => {
      const dir = join(mkdtempSync(join(tmpdir(), 'dg-run-')), 'run');
      const config = parseRunConfig({
        offline: { episodes: 20 },
        experienceModel,
        train: { iterations: 2, tasksPerIteration: 2, groupSize: 2, epochs: 1 },
        evaluation: { episodes: 4, every: 0 },
      });
      await runPipeline(config, dir);
      const buffer = SqliteReplayBuffer.open({ path: join(dir, 'buffer.db') });
      try {
        return (await buffer.trajectoryIds({ provenance: 'synthetic' })).length;
      } finally {
        await buffer.close();
      }
    };
    expect(await synthetic({})).toBe(2 * 2 * 2);
    expect(await synthetic({ writeBack: false, realShare: 1 })).toBe(0);
  }, 60_000);
});
