import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTransfer } from './transfer.ts';

/**
 * A tiny transfer run end to end: a webshop policy trained synthetic-only, moved to the store web
 * app in a real Chromium (it fails naming the fix when there is none).
 */
describe('runTransfer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-transfer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('scores the source policy zero-shot, fine-tuned and against from-scratch on the same budget', async () => {
    const result = await runTransfer({
      source: 'webshop',
      target: 'web:store',
      seed: 0,
      sourceOfflineEpisodes: 8,
      sourceIterations: 1,
      sourceEvalEpisodes: 4,
      sourceTrainer: { tasksPerIteration: 2, groupSize: 2 },
      targetOfflineEpisodes: 4,
      targetSteps: 40,
      evalEpisodes: 3,
      parallel: 2,
      maxEpisodeSteps: 5,
      epsilon: 0.3,
      trainer: { tasksPerIteration: 2, groupSize: 2 },
      outDir: dir,
    });
    expect(result.rows.map((r) => r.method)).toEqual([
      'untrained (random weights)',
      'webshop policy, zero-shot',
      'webshop policy + DreamGym GRPO fine-tune on web:store',
      'from scratch: DreamGym GRPO on web:store',
    ]);
    for (const row of result.rows) expect(row.success.n).toBe(3);
    const [, zeroShot, fineTuned, scratch] = result.rows;
    expect(zeroShot?.targetSyntheticSteps).toBe(0);
    // The same synthetic budget, never exceeded.
    for (const row of [fineTuned, scratch]) {
      expect(row?.targetSyntheticSteps).toBeGreaterThan(0);
      expect(row?.targetSyntheticSteps).toBeLessThanOrEqual(40);
    }
    expect(result.source.syntheticSteps).toBeGreaterThan(0);
    expect(result.source.success.n).toBe(4);
    expect(result.target.offlineTransitions).toBeGreaterThan(0);
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('| webshop policy, zero-shot |');
    expect(report).toContain('Source policy: DreamGym GRPO on webshop');
  }, 240_000);
});
