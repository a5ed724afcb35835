import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DreamTrainingJob, trainDream } from './dream-training.ts';
import { runWebDemo, type WebDemoResult, type WebDemoRow } from './web-demo.ts';
import { writeWebDemoReport } from './web-demo-report.ts';
import { pairedWithBaseline } from './web-rows.ts';

/**
 * A tiny web demo end to end in a real Chromium (it fails naming the fix when there is none):
 * offline expert episodes in the browser, the synthetic env learnt from them, every row trained
 * and evaluated in the real env.
 */
describe('runWebDemo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-web-demo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every row on a site, synthetic rows without real steps, and writes the report', async () => {
    const lines: string[] = [];
    const result: WebDemoResult = await runWebDemo({
      sites: ['web:forum'],
      seed: 0,
      offlineEpisodes: 6,
      epsilon: 0.3,
      syntheticIterations: 1,
      // Two groups of two may well all score alike, and GRPO would then leave the policy as it
      // was; the thread test below needs weights that moved.
      trainer: { tasksPerIteration: 2, groupSize: 2, dropUninformativeGroups: false },
      evalEpisodes: 3,
      parallel: 2,
      maxEpisodeSteps: 6,
      outDir: dir,
      onProgress: (line) => lines.push(line),
    });
    expect(result.rows.map((r) => r.method.split(' (')[0])).toEqual([
      'untrained policy',
      'BC',
      'DPO',
      'DreamGym GRPO',
      'DreamGym PPO',
      'real RL, if it were possible',
    ]);
    const testIds = result.rows[0]?.outcomes.map((o) => o.taskId);
    for (const row of result.rows) {
      expect(row.site).toBe('web:forum');
      expect(row.success.n).toBe(3);
      // Every row's outcomes: the same held-out tasks in order, each with its kind, adding up to its rate.
      expect(row.outcomes.map((o) => o.taskId)).toEqual(testIds);
      for (const o of row.outcomes)
        expect(['information', 'navigation', 'change']).toContain(o.kind);
      const solved = row.outcomes.filter((o) => o.reward >= 1).length;
      expect(solved / 3).toBeCloseTo(row.success.mean, 12);
    }
    const dream = result.rows.filter((r) => r.method.startsWith('DreamGym'));
    for (const row of dream) {
      expect(row.realInteractions).toBe(0);
      expect(row.syntheticInteractions).toBeGreaterThan(0);
    }
    expect(result.rows.at(-1)?.realInteractions).toBeGreaterThan(0);
    const site = result.sites[0];
    expect(site?.offlineTransitions).toBeGreaterThan(0);
    // By default every RL row trains on the offline demonstrations' tasks, not all 1,000.
    expect(site?.rlTasks).toBe(6);
    expect(site?.realStepMs).toBeGreaterThan(0);
    expect(site?.syntheticStepMs).toBeGreaterThan(0);
    await writeWebDemoReport(result, dir);
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('| web:forum | BC (SFT on offline demos) |');
    // The by-kind table pairs each trained row with BC on the same tasks.
    const [bc, grpo] = [result.rows[1], result.rows[3]] as [WebDemoRow, WebDemoRow];
    const paired = pairedWithBaseline(grpo, bc);
    expect(report).toContain(`| web:forum | DreamGym GRPO | `);
    expect(report).toContain(`+${paired?.better} / −${paired?.worse} (p = `);
    expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).rows).toHaveLength(6);
    expect(lines.some((l) => l.includes('offline transitions'))).toBe(true);
  }, 240_000);

  it('trains the DreamGym rows on threads to the same weights as on this one', async () => {
    const policy = (folder: string) =>
      JSON.parse(readFileSync(join(folder, 'policy.json'), 'utf8')).weights;
    for (const algo of ['grpo', 'ppo']) {
      const onThread = join(dir, `web-forum-dreamgym-${algo}`);
      const job = JSON.parse(readFileSync(join(onThread, 'job.json'), 'utf8')) as DreamTrainingJob;
      expect(job.trainer.algo).toBe(algo);
      const here = join(dir, `again-${algo}`);
      await trainDream({ ...job, outPolicy: here });
      expect(policy(here)).toEqual(policy(onThread));
      expect(policy(here)).not.toEqual(policy(job.startPolicy));
    }
  }, 120_000);
});
