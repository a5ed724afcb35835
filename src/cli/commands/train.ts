import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { initTf } from '../../core/tf.ts';
import { finalReward } from '../../core/types.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import { envEntry } from '../../envs/registry.ts';
import { describeDpoFit, offlineDpoPairs } from '../../pipeline/dpo-baseline.ts';
import { ChoicePolicy } from '../../policy/choice/choice-policy.ts';
import { hasExpert } from '../../policy/registry.ts';
import { behaviourCloning } from '../../rl/bc.ts';
import { completeCheckpoint } from '../../rl/checkpoint.ts';
import { CHOICE_POLICY_DPO_BETA, directPreferenceOptimization } from '../../rl/dpo.ts';
import {
  DEFAULT_TRAINER_CONFIG,
  evaluate,
  type IterationMetrics,
  train,
} from '../../rl/trainer.ts';
import { intOption, nonNegativeNumber, positiveNumber } from '../options.ts';

const ALGOS = ['grpo', 'ppo', 'bc', 'dpo'] as const;
type Algo = (typeof ALGOS)[number];

function algoOption(value: string): Algo {
  if (!(ALGOS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${ALGOS.join(', ')}, got "${value}".`);
  }
  return value as Algo;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

function progressLine(m: IterationMetrics, iterations: number): string {
  const evalPart = m.eval
    ? `  eval success ${percent(m.eval.successRate)} reward ${m.eval.meanReward.toFixed(3)}`
    : '';
  const s = m.seconds;
  return (
    `iter ${m.iteration + 1}/${iterations}  rollout success ${percent(m.rollout.successRate)} reward ${m.rollout.meanReward.toFixed(3)}` +
    `  kl ${m.update.approxKl.toFixed(4)}${m.update.refKl ? ` ref-kl ${m.update.refKl.toFixed(4)}` : ''} entropy ${m.update.entropy.toFixed(2)}${evalPart}` +
    `  (collect ${s.collect.toFixed(1)}s update ${s.update.toFixed(1)}s)`
  );
}

/**
 * The checkpoint `--resume` continues from: the last complete one under `dir`, or a
 * {@link ConfigError} when there is none, or when the algorithm has nothing to resume.
 */
function resumeFrom(dir: string, algo: Algo): string {
  if (algo === 'bc' || algo === 'dpo') {
    throw new ConfigError(
      `--resume continues GRPO or PPO training; --algo ${algo} learns from the data in one go: drop --resume.`,
    );
  }
  const found = completeCheckpoint(dir);
  if (!found) {
    throw new ConfigError(
      `--resume: there is no checkpoint to continue from in ${dir} (no state.json). Check --out (the folder of the run to resume), or drop --resume to start a new run.`,
    );
  }
  return found;
}

/** What `--algo bc` and `--algo dpo` read of the command's options. */
interface FromDataOptions {
  algo: 'bc' | 'dpo';
  data?: string;
  lr: number;
  epochs: number;
  beta: number;
  seed: number;
}

/**
 * Behaviour cloning on the successes of `--data` and, with `--algo dpo`, DPO from the cloned
 * policy on the data's preference pairs, as `dreamgym run` does with `train.algo: dpo`. Data that
 * cannot train is refused before any training. Each stage stops at its validation split's best
 * epoch; `--epochs`, when given, caps both.
 */
async function learnFromData(
  o: FromDataOptions,
  family: string,
  epochsGiven: boolean,
): Promise<ChoicePolicy> {
  if (!o.data) {
    throw new ConfigError(
      `--algo ${o.algo} learns from offline data: pass --data FILE.jsonl (see dreamgym collect).`,
    );
  }
  const trajectories = await readTrajectories(o.data);
  if (!trajectories.some((t) => finalReward(t) >= 1)) {
    throw new ConfigError(
      `--data ${o.data}: none of its ${trajectories.length} episodes succeeded (final reward 1), and behaviour cloning${o.algo === 'dpo' ? ', where DPO starts,' : ''} learns from successes: collect data with a policy that succeeds (dreamgym collect --policy expert, or a trained policy's folder).`,
    );
  }
  const pairs =
    o.algo === 'dpo'
      ? await offlineDpoPairs(trajectories, { env: family, seed: o.seed })
      : undefined;
  if (pairs?.length === 0) throw new ConfigError(noPairs(o.data, family));
  const policy = new ChoicePolicy({ seed: o.seed, family });
  const capped = epochsGiven ? { epochs: o.epochs } : {};
  const started = performance.now();
  const fit = behaviourCloning(policy, trajectories, {
    ...capped,
    learningRate: o.lr,
    seed: o.seed,
  });
  const kept = fit.validation
    ? `, epoch ${fit.validation.bestEpoch} of ${fit.epochs} kept (held-out nll ${fit.validation.nll.toFixed(3)} on ${fit.validation.trajectories} trajectories)`
    : '';
  console.log(
    `cloned ${fit.decisions} decisions of ${fit.trajectories} successful trajectories (nll ${fit.nll.toFixed(3)}${kept}) in ${seconds(started)} s`,
  );
  for (const warning of fit.warnings) console.warn(`warning: ${warning}`);
  if (pairs) {
    const dpoStarted = performance.now();
    const dpo = directPreferenceOptimization(policy, pairs, {
      ...capped,
      beta: o.beta,
      learningRate: o.lr,
      seed: o.seed,
    });
    console.log(
      `DPO: ${describeDpoFit({ ...dpo, pairCount: pairs.length })} in ${seconds(dpoStarted)} s`,
    );
  }
  return policy;
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/** Why `file` gives DPO nothing to learn from, and what data would. */
function noPairs(file: string, family: string): string {
  const where = hasExpert(family)
    ? ` and ${family}'s scripted expert would have taken every action it took`
    : '';
  return `--data ${file} yields no preference pair: no success and failure of a task acted differently in the same state${where}. DPO needs data of a policy that makes mistakes: several episodes per task that both succeed and fail${hasExpert(family) ? ', or any episodes with mistakes (dreamgym collect --policy expert --epsilon 0.3)' : " (dreamgym collect --episodes beyond the split's task count plays each task again)"}; or train with --algo bc.`;
}

export function trainCommand(program: Command): void {
  program
    .command('train')
    .description(
      'train the choice policy with GRPO or PPO in an env, or by behaviour cloning or DPO on offline data',
    )
    .requiredOption('--env <name>', 'env to train and evaluate in, e.g. webshop')
    .option('--algo <name>', `algorithm: ${ALGOS.join(', ')}`, algoOption, 'grpo')
    .requiredOption('--out <dir>', 'run folder: metrics.jsonl and checkpoint/ go here')
    .option(
      '--iterations <n>',
      'training iterations (grpo, ppo)',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.iterations,
    )
    .option(
      '--tasks-per-iteration <n>',
      'distinct tasks per iteration',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.tasksPerIteration,
    )
    .option(
      '--group-size <n>',
      'rollouts per task (GRPO group)',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.groupSize,
    )
    .option('--train-tasks <n>', 'size of the train task pool', intOption(1), 1000)
    .option(
      '--eval-every <n>',
      'evaluate every n iterations (0 never)',
      intOption(0),
      DEFAULT_TRAINER_CONFIG.evalEvery,
    )
    .option(
      '--eval-episodes <n>',
      'held-out test tasks per evaluation',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.evalEpisodes,
    )
    .option('--lr <x>', 'learning rate', positiveNumber, DEFAULT_TRAINER_CONFIG.learningRate)
    .option(
      '--epochs <n>',
      'passes over each batch (bc, dpo: the most epochs of each stage; each stops at its validation split’s best)',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.epochs,
    )
    .option(
      '--kl-coef <β>',
      'grpo, ppo: weight of the KL penalty towards the starting policy (GRPO’s π_ref); 0 none',
      nonNegativeNumber,
      DEFAULT_TRAINER_CONFIG.klCoef,
    )
    .option(
      '--data <file>',
      'bc, dpo: offline trajectory JSONL. bc clones its successes; dpo clones them, then trains DPO on its preference pairs: a success’s action against a failure’s in the same state (as export-rl --pairs) and, where the env has a scripted expert, the expert’s choice against each action it would not take',
    )
    .option(
      '--beta <β>',
      'dpo: how far DPO may move the policy from the cloned one (DPO’s β)',
      positiveNumber,
      CHOICE_POLICY_DPO_BETA,
    )
    .option('--seed <n>', 'seed', intOption(0), 0)
    .option('--resume', 'continue from the run folder’s last checkpoint')
    .addHelpText(
      'after',
      '\nExamples:\n  dreamgym train --env webshop --algo grpo --iterations 30 --out runs/grpo\n  dreamgym train --env webshop --algo bc --data data/webshop-offline.jsonl --out runs/bc\n  dreamgym train --env webshop --algo dpo --data data/webshop-offline.jsonl --out runs/dpo',
    )
    .action(async (o, command: Command) => {
      const checkpoint = join(o.out, 'checkpoint');
      // Resume from the last complete checkpoint; none (a mistyped --out, say) or a broken one is
      // an error, never a fresh start.
      const found = o.resume ? resumeFrom(checkpoint, o.algo) : undefined;
      await initTf();
      const entry = envEntry(o.env);
      const evalTasks = entry.tasks({ split: 'test' }).tasks('test', o.evalEpisodes);
      const makeEnv = () => entry.make({});
      if (o.algo === 'bc' || o.algo === 'dpo') {
        const family = entry.name ?? o.env;
        const policy = await learnFromData(
          o,
          family,
          command.getOptionValueSource('epochs') === 'cli',
        );
        await policy.save(checkpoint);
        const result = await evaluate(policy, makeEnv, evalTasks);
        console.log(
          `held-out success ${percent(result.successRate)}, mean reward ${result.meanReward.toFixed(3)} on ${result.episodes} test tasks`,
        );
        console.log(`policy saved to ${checkpoint}`);
        return;
      }
      const policy = found
        ? await ChoicePolicy.load(found, { temperature: 1 })
        : new ChoicePolicy({ seed: o.seed, family: entry.name ?? o.env });
      const trainTasks = entry.tasks({ split: 'train' }).tasks('train', o.trainTasks);
      await train(
        {
          policy,
          // The run starts from the seeded initial weights; on --resume they are rebuilt the same.
          ...(o.klCoef > 0 && {
            reference: new ChoicePolicy({ seed: o.seed, family: entry.name ?? o.env }),
          }),
          makeEnv,
          trainTasks,
          makeEvalEnv: makeEnv,
          evalTasks,
          outDir: o.out,
          resume: o.resume,
          onIteration: (m) => console.log(progressLine(m, o.iterations)),
        },
        {
          algo: o.algo,
          iterations: o.iterations,
          tasksPerIteration: o.tasksPerIteration,
          groupSize: o.groupSize,
          evalEvery: o.evalEvery,
          evalEpisodes: o.evalEpisodes,
          learningRate: o.lr,
          epochs: o.epochs,
          klCoef: o.klCoef,
          seed: o.seed,
        },
      );
      console.log(`policy saved to ${checkpoint}; metrics in ${join(o.out, 'metrics.jsonl')}`);
    });
}
