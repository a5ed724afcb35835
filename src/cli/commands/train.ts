import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { initTf } from '../../core/tf.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import { envEntry } from '../../envs/registry.ts';
import { ChoicePolicy } from '../../policy/choice/choice-policy.ts';
import { behaviourCloning } from '../../rl/bc.ts';
import { completeCheckpoint } from '../../rl/checkpoint.ts';
import {
  DEFAULT_TRAINER_CONFIG,
  evaluate,
  type IterationMetrics,
  train,
} from '../../rl/trainer.ts';
import { intOption, nonNegativeNumber, positiveNumber } from '../options.ts';

const ALGOS = ['grpo', 'ppo', 'bc'] as const;

function algoOption(value: string): (typeof ALGOS)[number] {
  if (!(ALGOS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${ALGOS.join(', ')}, got "${value}".`);
  }
  return value as (typeof ALGOS)[number];
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
function resumeFrom(dir: string, algo: (typeof ALGOS)[number]): string {
  if (algo === 'bc') {
    throw new ConfigError(
      '--resume continues GRPO or PPO training; --algo bc clones the data in one go: drop --resume.',
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

export function trainCommand(program: Command): void {
  program
    .command('train')
    .description(
      'train the choice policy with GRPO or PPO in an env, or by behaviour cloning on offline data',
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
      'passes over each batch (bc: the most epochs; it stops at its validation split’s best)',
      intOption(1),
      DEFAULT_TRAINER_CONFIG.epochs,
    )
    .option(
      '--kl-coef <β>',
      'grpo, ppo: weight of the KL penalty towards the starting policy (GRPO’s π_ref); 0 none',
      nonNegativeNumber,
      DEFAULT_TRAINER_CONFIG.klCoef,
    )
    .option('--data <file>', 'bc: offline trajectory JSONL to clone')
    .option('--seed <n>', 'seed', intOption(0), 0)
    .option('--resume', 'continue from the run folder’s last checkpoint')
    .addHelpText(
      'after',
      '\nExamples:\n  dreamgym train --env webshop --algo grpo --iterations 30 --out runs/grpo\n  dreamgym train --env webshop --algo bc --data data/webshop-offline.jsonl --out runs/bc',
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
      if (o.algo === 'bc') {
        if (!o.data)
          throw new ConfigError(
            '--algo bc clones offline data: pass --data FILE.jsonl (see dreamgym collect).',
          );
        const policy = new ChoicePolicy({ seed: o.seed, family: entry.name ?? o.env });
        const trajectories = await readTrajectories(o.data);
        const started = performance.now();
        // BC stops at its validation split's best epoch; --epochs, when given, caps it.
        const fit = behaviourCloning(policy, trajectories, {
          ...(command.getOptionValueSource('epochs') === 'cli' && { epochs: o.epochs }),
          learningRate: o.lr,
          seed: o.seed,
        });
        await policy.save(checkpoint);
        const result = await evaluate(policy, makeEnv, evalTasks);
        const kept = fit.validation
          ? `, epoch ${fit.validation.bestEpoch} of ${fit.epochs} kept (held-out nll ${fit.validation.nll.toFixed(3)} on ${fit.validation.trajectories} trajectories)`
          : '';
        console.log(
          `cloned ${fit.decisions} decisions of ${fit.trajectories} successful trajectories (nll ${fit.nll.toFixed(3)}${kept}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        for (const warning of fit.warnings) console.warn(`warning: ${warning}`);
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
