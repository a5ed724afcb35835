import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';
import { runScaling } from './scaling.ts';
import { writeScalingReport } from './scaling-report.ts';

describe('data scaling', () => {
  it('trains on each amount of offline data and measures the model learnt from it', async () => {
    const result = await runScaling({
      env: 'webshop',
      sizes: [5, 60],
      seed: 0,
      seeds: 2,
      epsilon: 0.3,
      syntheticIterations: 1,
      trainer: { tasksPerIteration: 2, groupSize: 2, epochs: 1 },
      evalEpisodes: 5,
      fidelityEpisodes: 20,
    });
    expect(result.points.map((p) => p.offlineEpisodes)).toEqual([5, 60]);
    const [small, large] = result.points;
    expect(small?.runs).toHaveLength(2);
    // More real data: a bigger buffer, and a model that predicts held-out real pages better.
    expect(large?.runs[0]?.offlineTransitions).toBeGreaterThan(
      small?.runs[0]?.offlineTransitions ?? 0,
    );
    expect(large?.exactMatch.mean).toBeGreaterThan(small?.exactMatch.mean ?? 1);
    for (const p of result.points) {
      expect(p.success.n).toBe(2); // an interval across the two seeds
      for (const r of p.runs) expect(r.syntheticInteractions).toBeGreaterThan(0);
    }
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-scaling-'));
    const report = readFileSync(await writeScalingReport(result, dir), 'utf8');
    expect(report).toContain('| 60 |');
    expect(statSync(join(dir, 'scaling.png')).size).toBeGreaterThan(1000);
  }, 180_000);

  it('refuses household with the reason and the fix', async () => {
    const run = await runCliInProcess(['scaling', '--env', 'household']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/finds no reward in "household".*BC start.*use --env webshop/);
  });
});
