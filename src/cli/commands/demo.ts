import { join } from 'node:path';
import type { Command } from 'commander';
import { Curriculum } from '../../curriculum/curriculum.ts';
import { offlineMutators } from '../../curriculum/generators/offline-mutators.ts';
import { TaskPool } from '../../curriculum/task-pool.ts';
import { runDemo } from '../../pipeline/demo.ts';
import { demoTable, writeDemoReport } from '../../report/demo-report.ts';
import { intOption } from '../options.ts';

/**
 * `dreamgym demo`: the paper's Table 1 (or Table 2 with --ablations) on a built-in env, fully
 * offline: LLM-free experience model, CPU choice policy.
 */
export function demoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'reproduce the DreamGym main table offline: untrained, BC, real-env GRPO/PPO, DreamGym GRPO/PPO, S2R',
    )
    .option('--env <name>', 'built-in env', 'webshop')
    .option('--seed <n>', 'seed', intOption(0), 0)
    .option(
      '--offline-episodes <n>',
      'offline expert episodes that seed the buffer',
      intOption(1),
      500,
    )
    .option(
      '--budget <n>',
      'real env steps B for real-env RL (S2R gets B/10)',
      intOption(100),
      20_000,
    )
    .option(
      '--synthetic-iterations <n>',
      'training iterations in the synthetic env',
      intOption(1),
      30,
    )
    .option('--eval-episodes <n>', 'held-out test tasks per evaluation', intOption(1), 200)
    .option('--ablations', 'run the ablation table instead (no retrieval, no history)')
    .option('--out <dir>', 'run folder (default runs/demo-<time>)')
    .action(async (o) => {
      const outDir =
        o.out ?? join('runs', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      const started = performance.now();
      const result = await runDemo({
        env: o.env,
        seed: o.seed,
        offlineEpisodes: o.offlineEpisodes,
        epsilon: 0.3,
        realBudget: o.budget,
        syntheticIterations: o.syntheticIterations,
        trainer: { tasksPerIteration: 16, groupSize: 8, evalEvery: 5 },
        evalEpisodes: o.evalEpisodes,
        outDir,
        ablations: o.ablations,
        curriculum: (setup, seed) =>
          new Curriculum(
            { pool: TaskPool.open(), seedTasks: setup.trainTasks, generator: offlineMutators },
            { seed },
          ),
        onProgress: (line) =>
          process.stderr.write(
            `[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
          ),
      });
      const report = await writeDemoReport(result, outDir);
      console.log(`\n${demoTable(result)}\n`);
      console.log(
        `report: ${report}\nresults: ${join(outDir, 'results.json')}\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    });
}
