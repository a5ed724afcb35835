import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { Curriculum } from '../../curriculum/curriculum.ts';
import { offlineMutators } from '../../curriculum/generators/offline-mutators.ts';
import { SqliteTaskPool } from '../../curriculum/sqlite-task-pool.ts';
import { isWebFamily } from '../../experience/llm-free.ts';
import { runScaling } from '../../pipeline/scaling.ts';
import { scalingTable, writeScalingReport } from '../../pipeline/scaling-report.ts';
import { hasExpert } from '../../policy/registry.ts';
import { EXPERIENCE_HELP, experienceOption, intOption, probabilityOption } from '../options.ts';

/** Commander parser for a comma-separated list of positive integers, ascending. */
function sizesOption(value: string): number[] {
  const sizes = value.split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError(
      `expected positive integers separated by commas, e.g. 50,100,250; got "${value}".`,
    );
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/**
 * `dreamgym scaling`: DreamGym's held-out real success (synthetic-only GRPO) and the experience
 * model's fidelity against the amount of offline real data.
 */
export function scalingCommand(program: Command): void {
  program
    .command('scaling')
    .description(
      'DreamGym synthetic-only held-out success and model fidelity vs the amount of offline data, with CIs and a plot',
    )
    .option(
      '--env <name>',
      "env with a scripted expert: webshop, or a module of your own whose entry exports expert (GRPO starts from random weights, so the env's reward must be findable by chance; not household)",
      'webshop',
    )
    .option(
      '--offline <sizes>',
      'offline episodes per point, comma-separated',
      sizesOption,
      [50, 100, 250, 500, 1000],
    )
    .option('--seeds <n>', 'seeds per point (a CI across seeds)', intOption(1), 1)
    .option('--seed <n>', 'first seed', intOption(0), 0)
    .option('--epsilon <p>', "the offline expert's mistake rate", probabilityOption, 0.3)
    .option('--experience <model>', EXPERIENCE_HELP, experienceOption, 'auto')
    .option('--synthetic-iterations <n>', 'GRPO iterations in the synthetic env', intOption(1), 30)
    .option('--eval-episodes <n>', 'held-out test tasks in the real env', intOption(1), 200)
    .option(
      '--fidelity-episodes <n>',
      'held-out real episodes for teacher-forced fidelity',
      intOption(1),
      50,
    )
    .option(
      '--out <dir>',
      'where scaling.json, .md and the plot go (default runs/scaling-<env>-<time>)',
    )
    .action(async (o) => {
      const outDir =
        o.out ?? join('runs', `scaling-${o.env}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      const started = performance.now();
      if (o.env === 'household' || isWebFamily(o.env))
        throw new ConfigError(
          `scaling trains GRPO from random weights, which finds no reward in "${o.env}"; it would need the demo's BC start, which scaling does not do yet: use --env webshop.`,
        );
      if (!hasExpert(o.env))
        throw new ConfigError(
          `scaling collects its offline data at each size with the env's scripted expert, and "${o.env}" has none: export expert on its entry (or measure one size with dreamgym run, offline.data or offline.policy).`,
        );
      const result = await runScaling({
        env: o.env,
        sizes: o.offline,
        seed: o.seed,
        seeds: o.seeds,
        epsilon: o.epsilon,
        syntheticIterations: o.syntheticIterations,
        experience: o.experience,
        // The demo's webshop settings.
        trainer: { tasksPerIteration: 16, groupSize: 8 },
        evalEpisodes: o.evalEpisodes,
        fidelityEpisodes: o.fidelityEpisodes,
        curriculum: (setup, seed) =>
          new Curriculum(
            {
              pool: SqliteTaskPool.open(),
              seedTasks: setup.trainTasks,
              generator: offlineMutators,
            },
            { seed },
          ),
        onProgress: (line) =>
          process.stderr.write(
            `[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
          ),
      });
      await mkdir(outDir, { recursive: true });
      const report = await writeScalingReport(result, outDir);
      console.log(`\n${scalingTable(result)}\n`);
      console.log(
        `report: ${report}\nresults: ${join(outDir, 'scaling.json')}\nplot: ${join(outDir, 'scaling.png')}`,
      );
    });
}
