/**
 * Issue 20: `collect` and `run` pointed at one PostgreSQL replay buffer, as many collectors and
 * runs on many machines would share it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresReplayBuffer } from '../replay/postgres-buffer.ts';
import { startTestPostgres, type TestPostgres } from '../replay/testing/postgres-server.ts';
import { parseRunConfig } from './config.ts';
import { runPipeline } from './run.ts';

const bin = join(import.meta.dirname, '../../scripts/dreamgym-dev.js');

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop());

describe('a PostgreSQL replay buffer shared by collect and run', () => {
  it('collect --db adds its episodes; run --db seeds it once and trains from it', async () => {
    const url = await server.newDatabase();
    const collect = (seed: number) =>
      spawnSync(
        process.execPath,
        [
          bin,
          'collect',
          '--env',
          'webshop',
          '--episodes',
          '6',
          '--seed',
          String(seed),
          '--db',
          url,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
    for (const seed of [1, 2]) {
      const run = collect(seed);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`added to      ${url}`);
    }
    const printed = spawnSync(process.execPath, [bin, 'buffer', 'stats', '--db', url], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(printed.stdout).toContain('12 trajectories');
    // Debian's server has no pgvector: the in-process index answers, and the output says why.
    expect(printed.stdout).toMatch(/ann retrieval[\s\S]*retrieval: pgvector is not installed/);
    const buffer = await PostgresReplayBuffer.open({ url });
    try {
      const stats = await buffer.stats();
      expect(stats.byEnv.webshop?.['real-offline']?.trajectories).toBe(12);
    } finally {
      await buffer.close();
    }

    const config = parseRunConfig({
      env: 'webshop',
      offline: { episodes: 20 },
      train: { iterations: 1, tasksPerIteration: 2, groupSize: 2, epochs: 1 },
      evaluation: { episodes: 4, every: 0 },
    });
    const runDir = join(mkdtempSync(join(tmpdir(), 'dg-pg-run-')), 'run');
    await runPipeline(config, runDir, { buffer: url });
    expect(existsSync(join(runDir, 'buffer.db'))).toBe(false);
    expect(existsSync(join(runDir, 'summary.json'))).toBe(true);
    const after = await PostgresReplayBuffer.open({ url });
    try {
      const offline = await after.trajectoryIds({ env: 'webshop', provenance: 'real-offline' });
      expect(offline.length).toBe(12 + 20);
    } finally {
      await after.close();
    }
  }, 120_000);

  it('collect says what is wrong with where the episodes go: nowhere, or a server that is down', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, 'collect', '--env', 'webshop', ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const nowhere = run();
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toMatch(/pass --out FILE\.jsonl, --db BUFFER/);
    const down = run('--episodes', '2', '--db', 'postgres://nobody:secret@127.0.0.1:1/db');
    expect(down.status).toBe(1);
    expect(down.stderr.trim()).toBe(
      'error: cannot connect to the replay buffer at postgres://nobody:***@127.0.0.1:1/db: connect ECONNREFUSED 127.0.0.1:1. Check that the server runs and the URL (user, host, port, database) is right.',
    );
  });
});
