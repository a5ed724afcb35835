import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
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

describe('runPipeline with an env of the caller', () => {
  it('takes an EnvEntry in code, collecting offline data with the policy the config names', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dg-run-')), 'run');
    const entry = (await import('../envs/testing/lamps-module.ts')).bareLamps;
    const base = {
      offline: { episodes: 10 },
      train: { iterations: 1, tasksPerIteration: 2, groupSize: 2, epochs: 1 },
      evaluation: { episodes: 4, every: 0 },
    };
    // No expert on this entry: the default offline policy says what to set instead.
    await expect(runPipeline(parseRunConfig({ ...base, env: entry }), dir)).rejects.toThrow(
      /"lamps-bare" has no scripted expert .*offline\.data .*offline\.policy/,
    );
    expect(existsSync(dir)).toBe(false);
    const config = parseRunConfig({
      ...base,
      env: entry,
      offline: { episodes: 10, policy: 'random' },
    });
    await runPipeline(config, dir);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).env).toBe('lamps-bare');
    const buffer = SqliteReplayBuffer.open({ path: join(dir, 'buffer.db') });
    try {
      expect(Object.keys((await buffer.stats()).byEnv)).toEqual(['lamps-bare']);
    } finally {
      await buffer.close();
    }
  }, 60_000);
});

describe('runPipeline with train.algo dpo', () => {
  it('runs the offline baseline: BC then DPO on the offline pairs, no synthetic step', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dg-run-')), 'run');
    const lines: string[] = [];
    const config = parseRunConfig({
      offline: { episodes: 30 },
      train: { algo: 'dpo' },
      evaluation: { episodes: 4, every: 0 },
    });
    const summary = await runPipeline(config, dir, { onProgress: (l) => lines.push(l) });
    expect(summary.syntheticInteractions).toBe(0);
    expect(Object.keys(summary.seconds)).toEqual([
      'offline data',
      'replay buffer',
      'behaviour cloning',
      'DPO',
      'evaluation',
    ]);
    expect(lines.find((l) => l.startsWith('DPO: '))).toMatch(/^DPO: \d+ pairs, \d+ epochs/);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      'after BC and DPO on the offline data',
    );
    expect(existsSync(join(dir, 'policy', 'policy.json'))).toBe(true);
  }, 60_000);
});

describe("runPipeline with the generic recipe's settings", () => {
  it('starts from BC, branches, and keeps the best weights chosen on held-out offline tasks in the synthetic env', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dg-run-')), 'run');
    const lines: string[] = [];
    const config = parseRunConfig({
      offline: { episodes: 20 },
      experienceModel: { writeBack: false, realShare: 1 },
      train: {
        iterations: 2,
        tasksPerIteration: 2,
        groupSize: 2,
        epochs: 1,
        start: 'bc',
        klCoef: 1,
        keepBest: { validationTasks: 5 },
        branching: { share: 0.5, horizon: 3 },
      },
      evaluation: { episodes: 4, every: 1 },
    });
    await runPipeline(config, dir, { onProgress: (l) => lines.push(l) });
    expect(lines.some((l) => /^behaviour cloning: \d+ decisions/.test(l))).toBe(true);
    const metrics = readFileSync(join(dir, 'synthetic', 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Evaluated on the 5 held-out offline tasks (in the synthetic env), one group of 2 branched.
    expect(metrics.map((m) => m.eval.episodes)).toEqual([5, 5]);
    expect(metrics.map((m) => m.rollout.branched)).toEqual([2, 2]);
    expect(metrics.at(-1).kept.iteration).toBeGreaterThanOrEqual(-1);

    const few = parseRunConfig({ ...config, offline: { episodes: 4 } });
    await expect(runPipeline(few, join(dir, 'few'))).rejects.toThrow(
      /validationTasks is 5, but the offline data has 4 distinct tasks/,
    );
  }, 120_000);
});
