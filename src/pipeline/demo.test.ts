import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Curriculum } from '../curriculum/curriculum.ts';
import { offlineMutators } from '../curriculum/generators/offline-mutators.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import { runDemo } from './demo.ts';
import { writeDemoReport } from './demo-report.ts';

describe('DreamGym demo (tiny end to end)', () => {
  it('produces a report with every row on two seeds, and S2R stays within its real budget', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'dreamgym-demo-'));
    const result = await runDemo({
      env: 'webshop',
      seed: 1,
      seeds: 2,
      offlineEpisodes: 40,
      epsilon: 0.3,
      realBudget: 400,
      syntheticIterations: 2,
      trainer: { tasksPerIteration: 4, groupSize: 2, evalEvery: 1, epochs: 1 },
      evalEpisodes: 20,
      outDir,
    });
    expect(result.rows.map((r) => r.method)).toEqual([
      'untrained policy',
      'BC (SFT on offline data)',
      'DPO (expert-labelled offline pairs, from BC)',
      'GRPO (real, B = 400)',
      'PPO (real, B = 400)',
      'GRPO (real, small budget = 40)',
      'DreamGym GRPO (synthetic only)',
      'DreamGym PPO (synthetic only)',
      'DreamGym-S2R GRPO (synthetic, then 40 real)',
    ]);
    const [untrained, bc, dpo, grpo, ppo, small, dreamGrpo, dreamPpo, s2r] = result.rows;
    expect(small?.realInteractions).toBeGreaterThan(0);
    expect(small?.realInteractions).toBeLessThanOrEqual(40);
    expect(untrained?.realInteractions).toBe(0);
    expect(bc?.realInteractions).toBe(0);
    expect(dpo?.realInteractions).toBe(0);
    expect(dpo?.syntheticInteractions).toBe(0);
    for (const real of [grpo, ppo]) {
      expect(real?.realInteractions).toBeGreaterThan(0);
      expect(real?.realInteractions).toBeLessThanOrEqual(400);
      expect(real?.syntheticInteractions).toBe(0);
    }
    for (const dream of [dreamGrpo, dreamPpo]) {
      expect(dream?.realInteractions).toBe(0);
      expect(dream?.syntheticInteractions).toBeGreaterThan(0);
    }
    expect(s2r?.realInteractions).toBeGreaterThan(0);
    expect(s2r?.realInteractions).toBeLessThanOrEqual(40);
    expect(s2r?.syntheticInteractions).toBe(dreamGrpo?.syntheticInteractions);
    for (const r of result.rows) {
      expect(r.seeds.map((s) => s.seed)).toEqual([1, 2]);
      for (const s of r.seeds) expect(s.success.n).toBe(20);
      // The headline is the mean of the seeds with an interval across them.
      expect(r.success.n).toBe(2);
      expect(r.success.mean).toBeCloseTo(
        ((r.seeds[0]?.success.mean ?? -1) + (r.seeds[1]?.success.mean ?? -1)) / 2,
        10,
      );
      expect(r.success.low).toBeLessThanOrEqual(r.success.mean);
      // Every row's policy is also played in the synthetic env, on the same 20 test tasks.
      for (const s of r.seeds) {
        expect(s.synthetic?.n).toBe(20);
        expect([s.offlineTasks?.real.n, s.offlineTasks?.synthetic.n]).toEqual([20, 20]);
      }
    }
    expect(result.rankAgreement.map((a) => [a.seed, a.policies, a.offlineTasks.policies])).toEqual([
      [1, 9, 9],
      [2, 9, 9],
    ]);

    const report = await writeDemoReport(result, outDir);
    const text = readFileSync(report, 'utf8');
    for (const r of result.rows) expect(text).toContain(`| ${r.method} |`);
    expect(text).toContain('mean of 2 seeds');
    expect(text).toMatch(/orderings over 9 rows.*seed 1: test tasks τ .*, offline tasks τ /);
    for (const file of [
      'results.json',
      'success-vs-real.svg',
      'success-vs-real.png',
      'learning-curves.svg',
      'learning-curves.png',
    ]) {
      expect(existsSync(join(outDir, file)), file).toBe(true);
    }
  }, 180_000);

  it('starts every RL row from BC when asked: a row with no affordable step scores as BC', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'dreamgym-demo-warm-'));
    const result = await runDemo({
      env: 'webshop',
      seed: 3,
      offlineEpisodes: 40,
      epsilon: 0.3,
      realBudget: 400,
      // Below one iteration's worth of steps: the small-budget row trains not at all.
      smallBudget: 10,
      syntheticIterations: 1,
      trainer: { tasksPerIteration: 4, groupSize: 2, evalEvery: 1, epochs: 1 },
      evalEpisodes: 20,
      outDir,
      warmStart: true,
    });
    const byName = new Map(result.rows.map((r) => [r.method, r]));
    const bc = byName.get('BC (SFT on offline data)');
    const idle = byName.get('GRPO (real, small budget = 10, from BC)');
    expect(idle?.realInteractions).toBe(0);
    expect(idle?.success.mean).toBe(bc?.success.mean);
    expect(idle?.reward.mean).toBe(bc?.reward.mean);
    // the untrained row stays untrained
    expect(byName.get('untrained policy')?.success.mean).toBeLessThan(bc?.success.mean ?? 0);
    expect([...byName.keys()]).toContain('DreamGym-S2R GRPO (synthetic, from BC, then 10 real)');
  }, 180_000);

  it('runs the ablation table; the full row co-evolves, − co-evolution keeps the buffer frozen', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'dreamgym-ablations-'));
    /** Each experience model the demo made, in order, with what it was shown and asked. */
    const made: Array<{ syntheticDemonstrations: number; predictions: number; refreshes: number }> =
      [];
    const result = await runDemo({
      env: 'webshop',
      seed: 2,
      offlineEpisodes: 40,
      epsilon: 0.3,
      realBudget: 400,
      syntheticIterations: 2,
      trainer: { tasksPerIteration: 4, groupSize: 2, evalEvery: 1, epochs: 1 },
      evalEpisodes: 10,
      outDir,
      ablations: true,
      curriculum: (setup, seed) =>
        new Curriculum(
          { pool: SqliteTaskPool.open(), seedTasks: setup.trainTasks, generator: offlineMutators },
          { seed },
        ),
      experienceModel: async (setup, buffer) => {
        const inner = await llmFreeModel(setup.name, buffer);
        const seen = { syntheticDemonstrations: 0, predictions: 0, refreshes: 0 };
        made.push(seen);
        return {
          id: inner.id,
          initial: (task, demonstrations) => inner.initial(task, demonstrations),
          predict: (request) => {
            seen.predictions++;
            seen.syntheticDemonstrations += request.demonstrations.filter(
              (d) => d.provenance === 'synthetic',
            ).length;
            return inner.predict(request);
          },
          refresh: async () => {
            seen.refreshes++;
            return (await inner.refresh?.()) ?? 0;
          },
        };
      },
    });
    expect(result.rows.map((r) => r.method)).toEqual([
      'DreamGym GRPO (full)',
      '− curriculum',
      '− retrieval',
      '− history',
      '− co-evolution',
    ]);
    for (const r of result.rows) {
      expect(r.realInteractions).toBe(0);
      expect(r.syntheticInteractions).toBeGreaterThan(0);
    }
    // Made in order: the seed's shared model (− co-evolution's), then full's, − curriculum's,
    // − retrieval's (over an empty buffer) and − history's, each over a buffer of its own.
    const [shared, full, , ungrounded, noHistory] = made;
    expect(made).toHaveLength(5);
    // Full writes its episodes back and retrieves them in its second iteration; it refreshes.
    expect(full?.syntheticDemonstrations).toBeGreaterThan(0);
    expect(full?.refreshes).toBe(2);
    expect(noHistory?.syntheticDemonstrations).toBeGreaterThan(0);
    // − co-evolution: real demonstrations only from a buffer nothing was written to, no refresh.
    expect(shared?.predictions).toBeGreaterThan(0);
    expect(shared?.syntheticDemonstrations).toBe(0);
    expect(shared?.refreshes).toBe(0);
    expect(ungrounded).toMatchObject({ syntheticDemonstrations: 0, refreshes: 0 });
    // Full and − curriculum say what they trained on; only full's tasks came from a curriculum.
    const [withCurriculum, without] = result.rows.slice(0, 2).map((r) => r.seeds[0]?.curriculum);
    expect(withCurriculum?.selection?.iterations).toHaveLength(2);
    expect(withCurriculum?.selection?.played.seed.groups).toBeGreaterThan(0);
    expect(withCurriculum?.selection?.played.generated.groups).toBeGreaterThan(0);
    expect(without?.selection).toBeUndefined();
    for (const stats of [withCurriculum, without]) {
      // Only synthetic successes are replayed, and webshop variations have a spec to replay on.
      for (const replay of Object.values(stats?.replay ?? {})) {
        expect(replay.unreplayable).toBe(0);
        expect(replay.syntheticSuccesses).toBe(replay.episodes);
        expect(replay.confirmed).toBeLessThanOrEqual(replay.syntheticSuccesses);
      }
    }
    const report = readFileSync(await writeDemoReport(result, outDir), 'utf8');
    expect(report).toContain(
      '− reasoning does not apply: the LLM-free experience model does not reason',
    );
    expect(report).toContain('− co-evolution freezes the buffer');
  }, 180_000);
});
