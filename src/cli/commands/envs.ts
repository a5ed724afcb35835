import type { Command } from 'commander';
import { ENVS } from '../../envs/registry.ts';

export function envsCommand(program: Command): void {
  program
    .command('envs')
    .description('list the built-in environments and the ways to name your own')
    .action(() => {
      for (const [name, entry] of Object.entries(ENVS))
        console.log(`${name.padEnd(22)} ${entry.description}`);
      const refs: Array<[string, string]> = [
        [
          './my-env.ts',
          'your own env: a module exporting an EnvEntry (module:PATH#name for a named export)',
        ],
        [
          'openenv@URL',
          'any OpenEnv server, over its WebSocket protocol (openenv+http@URL over HTTP)',
        ],
        [
          'agentgym:NAME@URL',
          'an AgentGym env server (NAME: webshop, alfworld, textcraft, babyai, sciworld, sqlgym, maze, wordle, weather, movie, todo, academia, sheet, searchqa; agentgym:generic:NAME@URL for any other)',
        ],
        [
          'mcp@CONFIG.json',
          "an MCP tool server's tools as actions, tasks and checks from a task file",
        ],
        [
          'webarena@CONFIG',
          'WebArena(-Lite) task configs in a real Chromium against your own WebArena sites (--site NAME=URL)',
        ],
        [
          'synthetic:NAME',
          "DreamGym's synthetic env over a replay buffer (dreamgym serve … --db PATH)",
        ],
      ];
      for (const [name, description] of refs) console.log(`${name.padEnd(22)} ${description}`);
    });
}
