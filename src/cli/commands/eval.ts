import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { initTf } from '../../core/tf.ts';
import { percent, summarize } from '../../data/summary.ts';
import { envEntry } from '../../envs/registry.ts';
import { loadPolicy } from '../../policy/load.ts';
import { makePolicy } from '../../policy/registry.ts';
import {
  breakdownTable,
  decisionBreakdown,
  JUDGED_ENVS,
  judgeFor,
} from '../../report/breakdown.ts';
import { collect } from '../../rl/collect.ts';
import { addLlmPolicyOptions, llmPolicyFromFlags } from '../llm-policy-options.ts';
import { addSiteOption, intOption, splitOption } from '../options.ts';
import { progressBar } from '../progress.ts';

export function evalCommand(program: Command): void {
  const command = addSiteOption(program.command('eval'))
    .description('evaluate a policy (a name or a saved run) on held-out tasks')
    .requiredOption('--env <name>', 'env, e.g. webshop')
    .requiredOption(
      '--policy <name|dir>',
      'random, expert, explorer (household; acts only on what it sees), llm (with --llm-url and --llm-model), or a run folder saved by dreamgym train',
    )
    .option('--split <split>', 'task split: train or test', splitOption, 'test')
    .option('--episodes <n>', 'episodes (one per task)', intOption(1), 200)
    .option('--seed <n>', 'seed', intOption(0), 0)
    .option(
      '--breakdown',
      "compare each decision with the scripted expert's choice in the same state, by kind (built-in envs)",
    )
    .option('--json', 'print the result as JSON');
  addLlmPolicyOptions(command, 0)
    .addHelpText(
      'after',
      '\nExample:\n  dreamgym eval --env webshop --policy llm --llm-url http://127.0.0.1:8000/v1 --llm-model Qwen/Qwen2.5-7B-Instruct --episodes 50',
    )
    .action(async (o) => {
      await initTf();
      const entry = envEntry(o.env);
      const judge = o.breakdown ? judgeFor(o.env) : undefined;
      if (o.breakdown && !judge) {
        throw new ConfigError(
          `--breakdown compares each decision with a scripted expert, which exists for ${JUDGED_ENVS.join(' and ')}, not for "${o.env}"; drop --breakdown.`,
        );
      }
      const llmPolicy = llmPolicyFromFlags(o, { defaultTemperature: 0 });
      const policy = await loadPolicy(o.policy, { env: o.env, llmPolicy });
      const tasks = entry.tasks({ split: o.split }).tasks(o.split, o.episodes);
      const env = entry.make({ split: o.split });
      const bar = progressBar(o.episodes, `eval ${policy.id}`);
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
      const breakdown = judge
        ? await decisionBreakdown(trajectories, makePolicy('expert', { env: o.env }), judge)
        : undefined;
      // Episodes an LLM policy lost by answering with no admissible action, even after a retry.
      const policyErrors = trajectories.filter(
        (t) => t.steps.at(-1)?.info?.truncatedBy === 'policy-error',
      ).length;
      if (o.json) {
        console.log(
          JSON.stringify(
            {
              env: o.env,
              policy: policy.id,
              split: o.split,
              ...s,
              policyErrors,
              ...(breakdown && { breakdown }),
            },
            null,
            2,
          ),
        );
        return;
      }
      console.log(`${policy.id} on ${s.episodes} ${o.split} tasks of ${o.env}`);
      console.log(
        `success rate  ${percent(s.successRate)}\nmean reward   ${s.meanReward.toFixed(3)}\nmean steps    ${s.meanSteps.toFixed(2)}`,
      );
      if (policyErrors > 0)
        console.log(`policy errors ${policyErrors} episodes ended by an unusable answer`);
      if (breakdown)
        console.log(`\nper-decision breakdown against the expert\n${breakdownTable(breakdown)}`);
    });
}
