import { existsSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { loadRunConfig, parseRunConfig } from '../../pipeline/config.ts';
import { runPipeline } from '../../pipeline/run.ts';

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run the whole DreamGym loop from a config file (JSON or YAML)')
    .argument('<config>', 'run config; see examples/ and src/pipeline/config.ts for every field')
    .option('--out <dir>', 'run folder (default runs/<config name>-<time>)')
    .option(
      '--db <path>',
      "the replay buffer: a SQLite file or a postgres:// URL shared with other runs and collectors (default: the run folder's buffer.db)",
    )
    .option(
      '--curriculum <mode>',
      'override curriculum.mode: off, variance or random (for ablations)',
    )
    .addHelpText(
      'after',
      `
The method is train.algo: grpo or ppo (DreamGym: RL in the synthetic env, then optional s2r), or
dpo (the offline baseline: behaviour cloning on the offline data, then DPO on its preference
pairs with the BC policy as reference; train.beta is DPO's β, default 1; no s2r).`,
    )
    .action(async (file: string, o) => {
      if (o.out !== undefined) checkRunFolder(o.out);
      const loaded = await loadRunConfig(file);
      const config = o.curriculum
        ? parseRunConfig(
            { ...loaded, curriculum: { ...loaded.curriculum, mode: o.curriculum } },
            '--curriculum',
          )
        : loaded;
      const outDir =
        o.out ??
        join(
          'runs',
          `${basename(file, extname(file))}-${new Date().toISOString().replace(/[:.]/g, '-')}`,
        );
      const started = performance.now();
      const summary = await runPipeline(config, outDir, {
        ...(o.db !== undefined && { buffer: o.db }),
        onProgress: (line) =>
          process.stderr.write(
            `[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
          ),
      });
      const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
      const stage = config.train.algo === 'dpo' ? 'BC and DPO' : 'synthetic training';
      console.log(`held-out success after ${stage}: ${pct(summary.afterSynthetic.success.mean)}`);
      if (summary.afterS2r)
        console.log(
          `after S2R (${summary.realInteractions.s2r} real steps): ${pct(summary.afterS2r.success.mean)}`,
        );
      console.log(`report: ${join(outDir, 'report.md')}`);
    });
}

/** A run folder may exist (runs add to it) but must not be a file: refused before any work. */
function checkRunFolder(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new ConfigError(
      `--out ${dir} is a file, and a run writes a folder (config.json, buffer.db, report.md, …); pass a folder path, e.g. runs/my-run.`,
    );
  }
}
