import type { Command } from 'commander';
import { collect } from '../../data/collect.ts';
import { percent, summarize } from '../../data/summary.ts';
import { envEntry } from '../../envs/registry.ts';
import type { Policy } from '../../policy/policy.ts';
import { makePolicy } from '../../policy/registry.ts';
import { intOption } from '../options.ts';
import { progressBar } from '../progress.ts';

/**
 * The interim demo: how well the scripted expert (with and without mistakes) and a random
 * policy shop on webshop's held-out test tasks. The full DreamGym demo replaces it.
 */
export function demoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'run the scripted expert and a random policy on webshop test tasks and compare them',
    )
    .option('--episodes <n>', 'episodes per policy', intOption(1), 200)
    .option('--seed <n>', 'seed', intOption(0), 0)
    .action(async (o) => {
      const entry = envEntry('webshop');
      const tasks = entry.tasks({ split: 'test' }).tasks('test', o.episodes);
      const policies: Policy[] = [
        makePolicy('expert', { env: 'webshop', epsilon: 0 }),
        makePolicy('expert', { env: 'webshop', epsilon: 0.3 }),
        makePolicy('random', { env: 'webshop' }),
      ];
      console.log(
        `webshop: ${o.episodes} episodes per policy on held-out test tasks (seed ${o.seed})\n`,
      );
      const rows: string[][] = [];
      for (const policy of policies) {
        const env = entry.make({ split: 'test' });
        const bar = progressBar(o.episodes, policy.id);
        const started = performance.now();
        const trajectories = await collect({
          env,
          policy,
          tasks,
          episodes: o.episodes,
          seed: o.seed,
          provenance: 'real-online',
          onEpisode: () => bar.tick(),
        });
        bar.stop();
        await env.close();
        const s = summarize(trajectories);
        rows.push([
          policy.id,
          percent(s.successRate),
          s.meanReward.toFixed(3),
          s.meanSteps.toFixed(1),
          `${((performance.now() - started) / 1000).toFixed(1)} s`,
        ]);
      }
      printTable(['policy', 'success', 'mean reward', 'mean steps', 'time'], rows);
    });
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}
