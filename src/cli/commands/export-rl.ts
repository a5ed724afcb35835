import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { initTf } from '../../core/tf.ts';
import type { Trajectory } from '../../core/types.ts';
import { percent, summarize } from '../../data/summary.ts';
import { readTrajectories, TrajectoryWriter } from '../../data/trajectory-file.ts';
import { envEntry } from '../../envs/registry.ts';
import { loadPolicy } from '../../policy/load.ts';
import { POLICY_NAMES } from '../../policy/registry.ts';
import { writeRlEpisodes } from '../../rl/export/rl-episode-file.ts';
import { toDpoLines } from '../../rl/export/to-dpo-pairs.ts';
import { toRlEpisodes } from '../../rl/export/to-rl-episodes.ts';
import { rollout } from '../../rl/rollout.ts';
import {
  addLlmPolicyOptions,
  type LlmPolicyFlags,
  llmPolicyFromFlags,
  promptOptionsFromFlags,
} from '../llm-policy-options.ts';
import { flagsGiven, intOption, probabilityOption, splitOption } from '../options.ts';
import { progressBar } from '../progress.ts';

const EXAMPLES = `
Examples:
  dreamgym export-rl --env webshop --policy llm --llm-url http://127.0.0.1:8000/v1 --llm-model Qwen/Qwen2.5-7B-Instruct --tasks 16 --group-size 8 --concurrency 8 --out data/webshop-rl.jsonl
  dreamgym export-rl --env webshop --policy expert --epsilon 0.5 --tasks 50 --group-size 4 --out data/webshop-rl.jsonl
  dreamgym export-rl --data data/webshop-llm.jsonl --out data/webshop-rl.jsonl
  dreamgym export-rl --data data/webshop-llm.jsonl --out data/webshop-rl.jsonl --pairs data/webshop-dpo.jsonl

One episode a line: the chat the LLM policy had (system, then user and assistant per step,
assistant turns marked "trainable"), per-step rewards, and the GRPO advantage of the episode in
its task's group. Format and loaders for verl, TRL and plain PyTorch: docs/export-rl-format.md.
--pairs also writes DPO pairs in TRL's conversational preference format (DPOTrainer's dataset):
where a success and a failure of a task stood in the same state, the prompt the policy was sent
there, the success's action chosen and the failure's rejected.`;

interface ExportRlFlags extends LlmPolicyFlags {
  out: string;
  data?: string;
  env?: string;
  tasks: number;
  groupSize: number;
  split: 'train' | 'test';
  seed: number;
  concurrency: number;
  epsilon: number;
  maxSteps?: number;
  normalizeStd: boolean;
  saveTrajectories?: string;
  pairs?: string;
}

export function exportRlCommand(program: Command): void {
  const command = program
    .command('export-rl')
    .description(
      'write trajectory groups as chat JSONL with trainable turns, rewards and GRPO advantages, for external LLM trainers',
    )
    .requiredOption('--out <file>', 'output JSONL file')
    .option('--data <file>', 'trajectories to export (JSONL from collect), instead of rolling out')
    .option('--env <name>', 'roll out in this env, e.g. webshop')
    .option('--policy <name|dir>', `with --env: ${POLICY_NAMES.join(', ')}, or a run folder`, 'llm')
    .option('--tasks <n>', 'with --env: tasks (groups)', intOption(1), 16)
    .option('--group-size <n>', 'with --env: episodes per task (GRPO’s G)', intOption(2), 8)
    .option('--split <split>', 'with --env: task split', splitOption, 'train')
    .option('--seed <n>', 'with --env: seed of the rollouts', intOption(0), 0)
    .option('--concurrency <n>', 'with --env: episodes in flight at once', intOption(1, 512), 1)
    .option(
      '--epsilon <p>',
      "with --policy expert: the expert's mistake rate",
      probabilityOption,
      0,
    )
    .option('--max-steps <n>', "with --env: step limit (default: the env's own)", intOption(1))
    .option('--save-trajectories <file>', 'with --env: also write the rollouts as trajectory JSONL')
    .option('--no-normalize-std', "GRPO: don't divide advantages by the group's reward std")
    .option(
      '--pairs <file>',
      "also write DPO preference pairs (a success's action against a failure's in the same state) as TRL's {prompt, chosen, rejected} JSONL",
    );
  addLlmPolicyOptions(command, 1)
    .addHelpText('after', EXAMPLES)
    .action(async (o: ExportRlFlags) => {
      const started = performance.now();
      const trajectories = o.data ? await fromFile(o, command) : await fromRollouts(o);
      const result = toRlEpisodes(trajectories, {
        ...promptOptionsFromFlags(o),
        normalizeStd: o.normalizeStd,
      });
      await writeRlEpisodes(o.out, result.episodes);
      const pairs = o.pairs
        ? toDpoLines(trajectories, { ...promptOptionsFromFlags(o), seed: o.seed })
        : undefined;
      if (o.pairs && pairs)
        await writeFile(o.pairs, pairs.map((line) => `${JSON.stringify(line)}\n`).join(''));
      const s = summarize(trajectories);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        [
          `episodes      ${result.episodes.length} in ${result.groups} groups`,
          `informative   ${result.informativeGroups} groups with differing rewards`,
          `success rate  ${percent(s.successRate)}`,
          `mean reward   ${s.meanReward.toFixed(3)}`,
          ...(pairs ? [`pairs         ${pairs.length} DPO pairs`] : []),
          ...(pairs?.length === 0
            ? [
                'warning       no success and failure of a task stood in the same state: no DPO pair; roll out larger groups',
              ]
            : []),
          ...result.warnings.map((w) => `warning       ${w}`),
          `time          ${seconds} s`,
          ...(o.saveTrajectories ? [`trajectories  ${o.saveTrajectories}`] : []),
          `wrote         ${o.out}`,
          ...(o.pairs ? [`pairs written ${o.pairs}`] : []),
        ].join('\n'),
      );
    });
}

/** Options that only mean something when rolling out (prompt-format flags apply to both). */
const ROLLOUT_FLAGS = [
  'env',
  'policy',
  'tasks',
  'groupSize',
  'split',
  'seed',
  'concurrency',
  'epsilon',
  'maxSteps',
  'saveTrajectories',
  'llmUrl',
  'llmModel',
  'apiKey',
  'llmTemperature',
  'llmMaxTokens',
];

/** `--data`: the rollout flags do not apply, and are refused so a mix-up is noticed. */
async function fromFile(o: ExportRlFlags, command: Command): Promise<Trajectory[]> {
  const given = flagsGiven(command, ROLLOUT_FLAGS);
  if (given.length > 0)
    throw new ConfigError(
      `--data exports recorded trajectories; ${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} only when rolling out with --env.`,
    );
  return readTrajectories(o.data as string);
}

async function fromRollouts(o: ExportRlFlags): Promise<Trajectory[]> {
  if (!o.env)
    throw new ConfigError(
      'say what to export: --data FILE for recorded trajectories, or --env NAME (with --policy, --tasks, --group-size) to roll out.',
    );
  const entry = envEntry(o.env);
  if (entry.remote && o.policy === 'expert')
    throw new ConfigError(
      `the scripted expert reads each task's hidden goal, which the server behind ${o.env} does not expose; use --policy llm or random.`,
    );
  const llmPolicy = llmPolicyFromFlags(o, { defaultTemperature: 1, promptFlagsAlone: true });
  if (!POLICY_NAMES.includes(o.policy)) await initTf();
  const policy = await loadPolicy(o.policy, {
    env: o.env,
    epsilon: o.epsilon,
    temperature: 1,
    llmPolicy,
  });
  const envOptions = { split: o.split, maxSteps: o.maxSteps };
  const tasks = entry.tasks(envOptions).tasks(o.split, o.tasks);
  const bar = progressBar(tasks.length * o.groupSize, `export-rl ${o.env}/${policy.id}`);
  const writer = o.saveTrajectories ? await TrajectoryWriter.open(o.saveTrajectories) : undefined;
  try {
    const trajectories = (
      await rollout({
        makeEnv: () => entry.make(envOptions),
        policy,
        tasks,
        groupSize: o.groupSize,
        concurrency: o.concurrency,
        seed: o.seed,
        provenance: 'real-online',
        onEpisode: () => bar.tick(),
      })
    ).map((e) => e.trajectory);
    bar.stop();
    for (const t of trajectories) await writer?.write(t);
    await writer?.close();
    return trajectories;
  } catch (error) {
    bar.stop();
    await writer?.abort();
    throw error;
  }
}
