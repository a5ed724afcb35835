import type { Command } from 'commander';
import { ENVS } from '../../envs/registry.ts';

export function envsCommand(program: Command): void {
  program
    .command('envs')
    .description('list the built-in environments')
    .action(() => {
      for (const [name, entry] of Object.entries(ENVS))
        console.log(`${name.padEnd(10)} ${entry.description}`);
    });
}
