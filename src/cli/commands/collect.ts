import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { DEFAULT_MAX_OBSERVATION_CHARS } from '../../core/observation-limit.ts';
import { percent, summarize } from '../../data/summary.ts';
import { TrajectoryWriter } from '../../data/trajectory-file.ts';
import type { Env } from '../../envs/env.ts';
import { episodeTasks } from '../../envs/episode-tasks.ts';
import { envEntry } from '../../envs/registry.ts';
import { ObservationLimit } from '../../envs/wrappers/observation-limit.ts';
import { loadPolicy } from '../../policy/load.ts';
import { POLICY_NAMES } from '../../policy/registry.ts';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { collect } from '../../rl/collect.ts';
import { addLlmPolicyOptions, llmPolicyFromFlags } from '../llm-policy-options.ts';
import { addSiteOption, intOption, probabilityOption, splitOption } from '../options.ts';
import { progressBar } from '../progress.ts';

export function collectCommand(program: Command): void {
  const command = addSiteOption(program.command('collect'))
    .description(
      'play a policy in a real env and write its trajectories (offline data) to a JSONL file, a replay buffer, or both',
    )
    .requiredOption(
      '--env <name>',
      'env to play in: a built-in (webshop, household, web:forum, …), a module of your own (./my-env.ts exporting an EnvEntry), or a server (agentgym:NAME@URL, …)',
    )
    .option(
      '--policy <name|dir>',
      `policy: ${POLICY_NAMES.join(', ')}, or a saved policy's folder (expert: the env's scripted expert, where it has one)`,
      'expert',
    )
    .option('--epsilon <p>', "expert's mistake rate per decision", probabilityOption, 0)
    .option(
      '--episodes <n>',
      "number of episodes; past the split's tasks, they cycle through them (seeded)",
      intOption(1),
      100,
    )
    .option('--split <split>', 'task split: train or test', splitOption, 'train')
    .option('--seed <n>', 'seed for episodes and policy', intOption(0), 0)
    .option('--max-steps <n>', "step limit (default: the env's own)", intOption(1))
    .option('--catalog-size <n>', 'webshop: products in the generated catalog', intOption(10))
    .option('--catalog-seed <n>', 'webshop: catalog seed', intOption(0))
    .option(
      '--max-observation-chars <n>',
      `longest observation text kept; a longer one keeps its start and says so in info.clipped (default ${DEFAULT_MAX_OBSERVATION_CHARS.toLocaleString('en-US')} for server envs: mcp@, openenv@, agentgym:; no limit for others unless given)`,
      intOption(1),
    )
    .option(
      '--out <file>',
      'output JSONL file; if the env fails mid-run, the episodes that finished are kept here and in --db (exit code 1)',
    )
    .option(
      '--db <path>',
      'add each episode to this replay buffer as it ends (with or instead of --out): a SQLite file or a postgres:// URL, which many collectors can share',
    );
  addLlmPolicyOptions(command, 1)
    .addHelpText(
      'after',
      '\nExamples:\n  dreamgym collect --env webshop --policy expert --epsilon 0.3 --episodes 500 --seed 1 --out data/webshop-offline.jsonl\n  dreamgym collect --env webshop --policy expert --epsilon 0.3 --episodes 500 --seed 2 --db postgres://dreamgym@db-host/buffer\n  dreamgym collect --env webshop --policy llm --llm-url http://127.0.0.1:8000/v1 --llm-model Qwen/Qwen2.5-7B-Instruct --episodes 100 --out data/webshop-llm.jsonl',
    )
    .action(async (o) => {
      if (o.out === undefined && o.db === undefined) {
        throw new ConfigError(
          'collect needs somewhere to put the episodes: pass --out FILE.jsonl, --db BUFFER (a SQLite file or postgres:// URL), or both.',
        );
      }
      const entry = envEntry(o.env);
      if (entry.remote && o.policy === 'expert') {
        throw new ConfigError(
          `the scripted expert (the default --policy) reads each task's hidden goal, which the server behind ${o.env} does not expose; pass --policy random (or another policy that needs no goal).`,
        );
      }
      const envOptions = {
        split: o.split,
        maxSteps: o.maxSteps,
        catalogSize: o.catalogSize,
        catalogSeed: o.catalogSeed,
        maxObservationChars: o.maxObservationChars,
      };
      const llmPolicy = llmPolicyFromFlags(o, { defaultTemperature: 1 });
      const policy = await loadPolicy(o.policy, {
        env: o.env,
        epsilon: o.epsilon,
        temperature: 1,
        ...(llmPolicy && { llmPolicy }),
      });
      const { tasks, distinct, cycled } = episodeTasks(
        entry.tasks(envOptions),
        o.split,
        o.episodes,
        o.seed,
      );
      if (cycled) {
        const [fewest, most] = [
          Math.floor(o.episodes / distinct),
          Math.ceil(o.episodes / distinct),
        ];
        console.log(
          `the ${o.split} split has ${distinct} tasks: ${o.episodes} episodes cycle through them, ${fewest === most ? most : `${fewest}–${most}`} per task, each pass in an order fixed by --seed`,
        );
      }
      // Outputs are checked before any episode is played: a bad --out or --db costs nothing.
      const outputs: Outputs = {
        writer: o.out === undefined ? undefined : await TrajectoryWriter.open(o.out),
        newDbFile: o.db !== undefined && isNewSqliteFile(o.db),
        added: 0,
      };
      const { writer } = outputs;
      let env: Env;
      try {
        outputs.buffer = o.db === undefined ? undefined : await ReplayBuffer.open({ path: o.db });
        env = entry.make(envOptions);
        // Server envs hold observations to the limit themselves; any other env when it is given.
        if (o.maxObservationChars !== undefined && !entry.remote) {
          env = new ObservationLimit(env, o.maxObservationChars);
        }
      } catch (error) {
        // Nothing was played: the error alone says what is wrong.
        await keepFinished(outputs, o.episodes, error, { quiet: true });
        throw error;
      }
      const { buffer } = outputs;
      const bar = progressBar(o.episodes, `collect ${o.env}/${policy.id}`);
      const started = performance.now();
      try {
        const trajectories = await collect({
          env,
          policy,
          tasks,
          episodes: o.episodes,
          seed: o.seed,
          provenance: 'real-offline',
          onEpisode: async (t) => {
            await writer?.write(t);
            await buffer?.add([t]);
            outputs.added += 1;
            bar.tick();
          },
        });
        bar.stop();
        await writer?.close();
        const s = summarize(trajectories);
        const seconds = (performance.now() - started) / 1000;
        console.log(
          [
            `episodes      ${s.episodes} (${o.split} split, ${distinct} distinct tasks)`,
            `success rate  ${percent(s.successRate)}`,
            `mean reward   ${s.meanReward.toFixed(3)}`,
            `mean steps    ${s.meanSteps.toFixed(2)}`,
            `invalid acts  ${percent(s.invalidActionRate)} of steps`,
            `truncated     ${percent(s.truncatedRate)} of episodes`,
            `time          ${seconds.toFixed(1)} s`,
            ...(o.out === undefined ? [] : [`wrote         ${o.out}`]),
            ...(buffer === undefined ? [] : [`added to      ${buffer.path}`]),
          ].join('\n'),
        );
      } catch (error) {
        bar.stop();
        await keepFinished(outputs, o.episodes, error);
        throw error;
      } finally {
        await env.close();
        await buffer?.close();
      }
    });
}

/** Where `collect` puts episodes, and how many reached the buffer. */
interface Outputs {
  writer: TrajectoryWriter | undefined;
  buffer?: ReplayBuffer | undefined;
  /** `--db` names a SQLite file that did not exist before this run. */
  newDbFile: boolean;
  /** Episodes added to the buffer. */
  added: number;
}

/**
 * After `cause` stopped the run: publishes the episodes that finished (the JSONL file, the
 * buffer), or, when none did, leaves no trace (the file as it was, no new empty database), and
 * says which on stderr (`quiet`: not, when the run failed before it started).
 */
async function keepFinished(
  outputs: Outputs,
  episodes: number,
  cause: unknown,
  { quiet = false }: { quiet?: boolean } = {},
): Promise<void> {
  const { writer, buffer, added } = outputs;
  const kept: Array<{ count: number; where: string }> = [];
  if (writer && writer.count > 0) {
    const published = await writer.close().then(
      () => true,
      (error: unknown) => {
        if (error !== cause) console.error(`error: ${(error as Error).message}`);
        return false;
      },
    );
    kept.push({ count: writer.count, where: published ? writer.path : writer.partialPath });
  } else {
    await writer?.abort();
  }
  await buffer?.close();
  if (buffer && added > 0) kept.push({ count: added, where: buffer.path });
  if (buffer && added === 0 && outputs.newDbFile) {
    await Promise.all(['', '-wal', '-shm'].map((end) => rm(buffer.path + end, { force: true })));
  }
  if (!quiet) console.error(stoppedMessage(kept, episodes));
}

/** What a failed run kept, e.g. `collect stopped after 2 of 20 episodes: the 2 finished are in k.jsonl and k.db.` */
function stoppedMessage(kept: Array<{ count: number; where: string }>, episodes: number): string {
  const [first] = kept;
  if (!first) return 'collect stopped before any episode finished: nothing was written.';
  const most = Math.max(...kept.map((k) => k.count));
  const where = kept.every((k) => k.count === first.count)
    ? `the ${first.count} finished are in ${kept.map((k) => k.where).join(' and ')}`
    : kept.map((k) => `${k.count} are in ${k.where}`).join(', ');
  return `collect stopped after ${most} of ${episodes} episodes: ${where}.`;
}

/** True when `location` is a SQLite file path (not `:memory:`, not a URL) that does not exist yet. */
function isNewSqliteFile(location: string): boolean {
  return (
    location !== ':memory:' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !existsSync(location)
  );
}
