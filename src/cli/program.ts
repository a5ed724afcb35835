import { Command } from 'commander';
import { isModuleRef } from '../envs/module-entry.ts';
import { resolveEnvRef } from '../envs/registry.ts';
import { annotateCommand } from './commands/annotate.ts';
import { bufferCommand } from './commands/buffer.ts';
import { collectCommand } from './commands/collect.ts';
import { demoCommand } from './commands/demo.ts';
import { envsCommand } from './commands/envs.ts';
import { evalCommand } from './commands/eval.ts';
import { exportRlCommand } from './commands/export-rl.ts';
import { exportSftCommand } from './commands/export-sft.ts';
import { fidelityCommand } from './commands/fidelity.ts';
import { llmCommand } from './commands/llm.ts';
import { playCommand } from './commands/play.ts';
import { qualityCommand } from './commands/quality.ts';
import { runCommand } from './commands/run.ts';
import { scalingCommand } from './commands/scaling.ts';
import { serveCommand } from './commands/serve.ts';
import { serveSiteCommand } from './commands/serve-site.ts';
import { trainCommand } from './commands/train.ts';
import { transferCommand } from './commands/transfer.ts';
import { viewCommand } from './commands/view.ts';

/**
 * The `dreamgym` command with every subcommand registered, not yet parsed: `main.ts` runs it, and
 * the CLI reference in the docs is generated from it, so `--help` and the docs cannot disagree.
 */
export function buildProgram(): Command {
  const program = new Command('dreamgym')
    .description(
      'Train LLM-agent policies with RL on synthesized experience (after DreamGym, 2025).',
    )
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');

  for (const register of [
    demoCommand,
    transferCommand,
    collectCommand,
    playCommand,
    envsCommand,
    bufferCommand,
    trainCommand,
    evalCommand,
    runCommand,
    fidelityCommand,
    qualityCommand,
    scalingCommand,
    annotateCommand,
    exportSftCommand,
    exportRlCommand,
    serveCommand,
    serveSiteCommand,
    viewCommand,
  ]) {
    register(program);
  }
  llmCommand(program);
  // A user's env module (`--env ./my-env.ts`, `synthetic:./my-env.ts`, `module:PATH#export`) is
  // loaded once, before the command runs, and a server ref (`mcp@CONFIG`, `agentgym:NAME@URL`, …)
  // resolved; the option then holds the family name their data carries, which every command
  // resolves like a built-in's. A served env's worker processes run this same CLI and load it too.
  program.hook('preAction', async (_, action) => {
    const env: unknown = action.opts().env;
    const wrapped = typeof env === 'string' ? env.replace(/^synthetic:/, '') : '';
    if (typeof env === 'string' && (isModuleRef(wrapped) || wrapped.includes('@'))) {
      action.setOptionValue('env', await resolveEnvRef(env));
    }
  });
  return program;
}
