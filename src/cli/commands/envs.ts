import type { Command } from 'commander';
import { ENVS } from '../../envs/registry.ts';

export function envsCommand(program: Command): void {
  program
    .command('envs')
    .description('list the built-in environments')
    .action(() => {
      for (const [name, entry] of Object.entries(ENVS))
        console.log(`${name.padEnd(22)} ${entry.description}`);
      console.log(
        `${'agentgym:NAME@URL'.padEnd(22)} a real WebShop or ALFWorld served by AgentGym (NAME: webshop, alfworld)`,
      );
      console.log(
        `${'webarena@CONFIG'.padEnd(22)} WebArena(-Lite) task configs in a real Chromium against your own WebArena sites (--site NAME=URL)`,
      );
      console.log(
        `${'synthetic:NAME'.padEnd(22)} DreamGym's synthetic env over a replay buffer (dreamgym serve … --db PATH)`,
      );
    });
}
