import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { envEntry } from '../../envs/registry.ts';
import { runTransfer, transferReport } from '../../pipeline/transfer.ts';
import { intOption } from '../options.ts';

/** The web demo's trainer and step limit, so a fine-tune step costs what a web demo step does. */
const WEB_TRAINER = { tasksPerIteration: 16, groupSize: 4 };
const WEB_MAX_STEPS = 12;

function envOption(value: string): string {
  try {
    envEntry(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}

function webEnvOption(value: string): string {
  if (!value.startsWith('web:'))
    throw new InvalidArgumentError(
      `expected a built-in web app (web:store or web:forum), got "${value}".`,
    );
  return envOption(value);
}

/**
 * `dreamgym transfer`: the paper's cross-domain transfer on our envs — a DreamGym policy from the
 * text shop moved to a web app, zero-shot and fine-tuned, against training there from scratch.
 */
export function transferCommand(program: Command): void {
  program
    .command('transfer')
    .description(
      'cross-domain transfer: a DreamGym policy trained on --from, evaluated on the web app --to zero-shot, after a DreamGym fine-tune there, and against training there from scratch with the same synthetic budget (real browser only for offline demos and evaluation)',
    )
    .option('--from <env>', 'source env (trained synthetic-only)', envOption, 'webshop')
    .option('--to <env>', 'target web app', webEnvOption, 'web:store')
    .option('--seed <n>', 'seed', intOption(0), 0)
    .option('--source-offline <n>', 'offline expert episodes on the source', intOption(1), 500)
    .option('--source-iterations <n>', 'DreamGym GRPO iterations on the source', intOption(1), 30)
    .option(
      '--target-offline <n>',
      'offline expert episodes on the target (browser)',
      intOption(1),
      100,
    )
    .option(
      '--steps <n>',
      'synthetic target steps of the fine-tune and of the from-scratch run',
      intOption(1),
      3_000,
    )
    .option('--eval-episodes <n>', 'held-out target tasks per evaluation', intOption(1), 60)
    .option('--parallel <n>', 'browser episodes in flight at once', intOption(1), 4)
    .option('--out <dir>', 'run folder (default runs/transfer-<time>)')
    .action(async (o) => {
      const outDir =
        o.out ?? join('runs', `transfer-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      const started = performance.now();
      const result = await runTransfer({
        source: o.from,
        target: o.to,
        seed: o.seed,
        sourceOfflineEpisodes: o.sourceOffline,
        sourceIterations: o.sourceIterations,
        sourceEvalEpisodes: 200,
        targetOfflineEpisodes: o.targetOffline,
        targetSteps: o.steps,
        evalEpisodes: o.evalEpisodes,
        parallel: o.parallel,
        maxEpisodeSteps: WEB_MAX_STEPS,
        epsilon: 0.3,
        trainer: WEB_TRAINER,
        outDir,
        onProgress: (line) =>
          process.stderr.write(
            `[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
          ),
      });
      console.log(`\n${transferReport(result)}`);
      console.log(`report: ${join(outDir, 'report.md')}\nresults: ${join(outDir, 'results.json')}`);
      console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
    });
}
