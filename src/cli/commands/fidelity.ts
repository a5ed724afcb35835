import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import type { Task, Trajectory } from '../../core/types.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import type { Env, TaskSource, TaskSplit } from '../../envs/env.ts';
import { envEntry } from '../../envs/registry.ts';
import { webTaskKind } from '../../envs/web/webarena/task-kind.ts';
import { makeExperienceModel } from '../../pipeline/experience-model.ts';
import { envSetup, syntheticFactory } from '../../pipeline/experiment.ts';
import {
  type EpisodeStats,
  freeRunning,
  type ReplayCounts,
  type ReplayReport,
  replayRecorded,
  type StepFidelity,
  type TeacherForcedReport,
  teacherForced,
} from '../../pipeline/fidelity.ts';
import { loadPolicy } from '../../policy/load.ts';
import { hasExpert } from '../../policy/registry.ts';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { collect } from '../../rl/collect.ts';
import {
  addSiteOption,
  EXPERIENCE_HELP,
  experienceOption,
  intOption,
  probabilityOption,
} from '../options.ts';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function fidelityRow(name: string, f: StepFidelity): string {
  return `| ${name} | ${f.transitions} | ${pct(f.exactMatch)} | ${f.editSimilarity.toFixed(3)} | ${f.actionF1.toFixed(3)} | ${f.rewardMae.toFixed(3)} | ${pct(f.terminalAccuracy)} |`;
}

/**
 * Teacher-forced fidelity by action kind and by whether the real step changed the state, as a
 * markdown table, with Lemma 1's εR and εP and how the model's uncertainty tracks its errors.
 */
function teacherForcedTable(forced: TeacherForcedReport): string {
  const { changed, unchanged } = forced.byChange;
  const lemma = (f: StepFidelity) =>
    `εR ${f.rewardMae.toFixed(3)}, εP ${(1 - f.exactMatch).toFixed(3)} (${f.transitions} steps)`;
  const doubt = forced.uncertainty;
  return [
    '| actions | transitions | next-state exact match | edit similarity | action F1 | reward MAE | terminal accuracy |',
    '|---|---|---|---|---|---|---|',
    fidelityRow('all', forced),
    fidelityRow('steps that changed the state', changed),
    fidelityRow('steps that changed nothing', unchanged),
    ...Object.entries(forced.byAction).map(([kind, f]) => fidelityRow(`\`${kind}\``, f)),
    '',
    `Lemma 1's errors (εR: mean |reward error|; εP: share of next states not exactly the real one): all ${lemma(forced)}; steps that changed the state ${lemma(changed)}; steps that changed nothing ${lemma(unchanged)}.`,
    ...(doubt
      ? [
          `The model's uncertainty: ${doubt.whenRight.toFixed(3)} on average where its next state was exactly right, ${doubt.whenWrong.toFixed(3)} where it was not (${doubt.predictions} predictions).`,
        ]
      : []),
  ].join('\n');
}

/** Success, reward and length of episodes in some envs, as a markdown table. */
function episodesTable(rows: Array<[string, EpisodeStats]>): string {
  return [
    '| env | success | mean reward | mean steps |',
    '|---|---|---|---|',
    ...rows.map(
      ([env, e]) =>
        `| ${env} | ${pct(e.successRate)} | ${e.meanReward.toFixed(3)} | ${e.meanSteps.toFixed(1)} |`,
    ),
  ].join('\n');
}

/** The replay's counts by task kind (where there are several) and in all, as a markdown table. */
function replayTable(replay: ReplayReport): string {
  const { byKind = {}, generated, unreplayable, ...all } = replay;
  // A single kind needs no row of its own beside `all`.
  const kinds = Object.keys(byKind).length > 1 ? Object.entries(byKind) : [];
  const table = [
    '| tasks | episodes | synthetic successes | confirmed by the real env | false positives | real successes the synthetic env missed |',
    '|---|---|---|---|---|---|',
    ...kinds.map(([kind, counts]) => replayRow(kind, counts)),
    replayRow('all', all),
  ].join('\n');
  const notes = [
    ...(generated > 0
      ? [
          `${generated} of the ${all.episodes} episodes replayed are on tasks the curriculum generated (variations with a spec the real env builds).`,
        ]
      : []),
    ...(unreplayable > 0
      ? [
          `Not replayed: ${unreplayable} episodes whose task the real env cannot build (tasks the LLM task generator wrote have no spec).`,
        ]
      : []),
  ];
  return [table, ...notes].join('\n\n');
}

function replayRow(name: string, r: ReplayCounts): string {
  return `| ${name} | ${r.episodes} | ${r.syntheticSuccesses} | ${r.confirmed} | ${r.syntheticSuccesses ? pct(r.falsePositiveShare) : '–'} | ${r.missed} |`;
}

export function fidelityCommand(program: Command): void {
  addSiteOption(program.command('fidelity'))
    .description(
      'measure how close the synthetic env is to the real one, on held-out real episodes',
    )
    .option(
      '--env <name>',
      'env: a built-in, a module of your own (./my-env.ts), or a server (agentgym:NAME@URL, …)',
      'webshop',
    )
    .option('--model <kind>', 'experience model: llm-free or llm', 'llm-free')
    .option('--experience <model>', `llm-free: ${EXPERIENCE_HELP}`, experienceOption, 'auto')
    .option('--llm-url <url>', 'llm: OpenAI-compatible base URL')
    .option('--llm-model <name>', 'llm: model name')
    .option('--gguf <path>', 'llm: a local GGUF model instead of a server')
    .option(
      '--episodes <n>',
      'held-out real episodes, on tasks the offline data never saw: the train tasks it does not use, then the test split’s',
      intOption(1),
      200,
    )
    .option(
      '--offline-episodes <n>',
      'offline episodes that fill the buffer (played by --policy; not used with --data)',
      intOption(1),
      500,
    )
    .option(
      '--epsilon <p>',
      "the expert's mistake rate (offline and held-out data)",
      probabilityOption,
      0.3,
    )
    .option('--data <file>', 'offline data JSONL instead of collecting it')
    .option(
      '--policy <name|dir>',
      "who plays the offline (without --data) and held-out real episodes: a policy name or a saved policy's folder (default: the env's scripted expert with --epsilon where it has one, else random)",
    )
    .option('--k <n>', 'demonstrations per step', intOption(0), 4)
    .option('--seed <n>', 'seed of the held-out episodes', intOption(0), 9)
    .option(
      '--free-policy <name|dir>',
      'policy of the free-running comparison and the replay: a name, or the folder of a saved policy (it samples at temperature 1, as in training) (default: explorer for household, which sees only what an agent sees; else the --policy)',
    )
    .option(
      '--free-epsilon <p>',
      "the free-running policy's mistake rate where it has one (default: --epsilon); 0.7 makes the expert a policy unlike the offline data's",
      probabilityOption,
    )
    .option(
      '--free-tasks <which>',
      "tasks of the free-running comparison and the replay: held-out (tasks the offline data never saw) or offline (the offline data's own tasks, DreamGym's seed tasks)",
      'held-out',
    )
    .option(
      '--free-data <file>',
      'instead of the free-running comparison, replay recorded episodes in the real env: a trajectory JSONL, e.g. what `dreamgym serve --env synthetic:NAME --record FILE` wrote while a trainer drove it',
    )
    .option(
      '--out <dir>',
      'where fidelity.json and fidelity.md go (default runs/fidelity-<env>-<time>)',
    )
    .action(async (o, command: Command) => {
      if (o.model !== 'llm-free' && o.model !== 'llm')
        throw new ConfigError(`--model must be llm-free or llm, got "${o.model}".`);
      if (o.model === 'llm' && command.getOptionValueSource('experience') === 'cli')
        throw new ConfigError(
          '--experience picks the LLM-free model: drop it, or drop --model llm.',
        );
      if (o.freeTasks !== 'held-out' && o.freeTasks !== 'offline')
        throw new ConfigError(`--free-tasks must be held-out or offline, got "${o.freeTasks}".`);
      const outDir =
        o.out ??
        join('runs', `fidelity-${o.env}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      // Read first: a wrong file fails before minutes of collection.
      const fromFile = o.data ? await readTrajectories(o.data) : undefined;
      const entry = envEntry(o.env);
      const plan = taskPlan((split) => entry.tasks({ split }), {
        data: fromFile && { file: o.data, trajectories: fromFile },
        offlineEpisodes: o.offlineEpisodes,
        heldOut: o.episodes,
        env: o.env,
      });
      const setup = envSetup(o.env, { trainTasks: plan.train.length });
      const recorded = o.freeData ? await recordedEpisodes(o.freeData, setup.name) : undefined;
      const dataPolicyName = o.policy ?? (hasExpert(o.env) ? 'expert' : 'random');
      const dataPolicy = await loadPolicy(dataPolicyName, {
        env: o.env,
        epsilon: o.epsilon,
        temperature: 1,
      });
      const freePolicy = recorded
        ? undefined
        : await loadPolicy(o.freePolicy ?? (o.env === 'household' ? 'explorer' : dataPolicyName), {
            env: o.env,
            epsilon: o.freeEpsilon ?? o.epsilon,
            temperature: 1,
          });
      const real = setup.makeReal();
      // Closed whatever happens: a browser env left open keeps the process alive.
      const opened: Env[] = [real];
      try {
        const offline =
          fromFile ??
          (await collect({
            env: real,
            policy: dataPolicy,
            tasks: setup.trainTasks.slice(0, o.offlineEpisodes),
            episodes: o.offlineEpisodes,
            seed: 1,
            provenance: 'real-offline',
          }));
        const { heldOut: heldOutTasks, fromTest } = plan;
        if (fromTest > 0) {
          process.stderr.write(
            `held-out tasks: ${fromTest} of ${heldOutTasks.length} from the test split (the offline data uses the train tasks)\n`,
          );
        }
        const heldOut = await collect({
          env: real,
          policy: dataPolicy,
          tasks: heldOutTasks,
          episodes: heldOutTasks.length,
          seed: o.seed,
          provenance: 'real-online',
        });
        const buffer = await ReplayBuffer.open();
        await buffer.add(offline);
        const llm = o.gguf ? { gguf: o.gguf } : { url: o.llmUrl, model: o.llmModel };
        const model = await makeExperienceModel(
          {
            kind: o.model,
            model: o.experience,
            k: o.k,
            history: true,
            writeBack: false,
            realShare: 1,
            llm: { ...llm, timeoutMs: 120_000, maxConcurrency: 8 },
          },
          o.env,
          buffer,
        );
        process.stderr.write(
          `teacher-forced: ${heldOut.length} held-out episodes, model ${model.id}\n`,
        );
        const forced = await teacherForced({ model, buffer, trajectories: heldOut, k: o.k });
        // WebArena tasks have kinds to break the replay down by; webshop's and household's none.
        const kindOf = (tasks: readonly Task[]) =>
          tasks.every((task) => webTaskKind(task) !== undefined)
            ? { kindOf: (task: Task) => webTaskKind(task) as string }
            : {};
        const header = `# Fidelity: ${o.env}, ${model.id}\n\nOffline data: ${offline.length} episodes (${o.data ? o.data : dataPolicy.id}). Held-out: ${heldOut.length} real episodes of ${dataPolicy.id} on tasks the offline data never saw${fromTest > 0 ? ` (${fromTest} of them from the test split)` : ''} (seed ${o.seed}).\n\n## Teacher-forced (each real step predicted from the real history)\n\n${teacherForcedTable(forced)}\n\n`;
        const falsePositive =
          'A false positive is a synthetic success whose very actions fail in the real env: a reward an agent trained in the synthetic env learns from wrongly.';
        let json: object;
        let body: string;
        if (recorded) {
          process.stderr.write(
            `replaying ${recorded.length} recorded episodes of ${o.freeData} in the real env\n`,
          );
          const report = await replayRecorded({
            trajectories: recorded,
            realEnv: real,
            ...kindOf(recorded.map((t) => t.task)),
          });
          json = { model: model.id, teacherForced: forced, recordedEpisodes: report };
          body = `## Recorded episodes (${o.freeData})\n\n${episodesTable([['as recorded', report.recorded]])}\n\n## Replayed (the recorded episodes' actions, one by one, in the real env)\n\n${falsePositive}\n\n${replayTable(report.replayed)}\n`;
        } else {
          const syntheticEnv = syntheticFactory(setup, buffer, model, { k: o.k })();
          opened.push(syntheticEnv);
          const policy = freePolicy as NonNullable<typeof freePolicy>;
          process.stderr.write(
            `free-running: the same policy (${policy.id}) in the real and the synthetic env\n`,
          );
          const freeTasks =
            o.freeTasks === 'offline'
              ? [...new Map(offline.map((t) => [t.task.id, t.task])).values()]
              : heldOutTasks;
          const free = await freeRunning({
            policy,
            realEnv: real,
            syntheticEnv,
            tasks: freeTasks,
            seed: o.seed,
            ...kindOf(freeTasks),
          });
          json = { model: model.id, teacherForced: forced, freeRunning: free };
          body = `## Free-running (${policy.id}, on ${o.freeTasks === 'offline' ? "the offline data's own tasks" : 'the same held-out tasks'})\n\n${episodesTable(
            [
              ['real', free.real],
              [`synthetic (${model.id})`, free.synthetic],
            ],
          )}\n\n## Replayed (the synthetic episodes' actions, one by one, in the real env)\n\n${falsePositive}\n\n${replayTable(free.replayed)}\n`;
        }
        await buffer.close();
        await mkdir(outDir, { recursive: true });
        await writeFile(join(outDir, 'fidelity.json'), `${JSON.stringify(json, null, 2)}\n`);
        await writeFile(join(outDir, 'fidelity.md'), header + body);
        console.log(`${header}${body}\nwrote ${join(outDir, 'fidelity.md')} and fidelity.json`);
      } finally {
        for (const env of opened) await env.close();
      }
    });
}

/** The train tasks fidelity plays on, and its held-out ones with how many came from the test split. */
interface TaskPlan {
  train: Task[];
  heldOut: Task[];
  fromTest: number;
}

/**
 * The held-out tasks are the first tasks the offline data does not use: train tasks past the
 * ones it played (collected, the first `offlineEpisodes`; from a file, the tasks of its
 * episodes), then, where the train split runs out (an env with few train tasks), test tasks.
 * None left is a {@link ConfigError} naming the fix.
 */
function taskPlan(
  source: (split: TaskSplit) => TaskSource,
  {
    data,
    offlineEpisodes,
    heldOut,
    env,
  }: {
    data: { file: string; trajectories: readonly Trajectory[] } | undefined;
    offlineEpisodes: number;
    heldOut: number;
    env: string;
  },
): TaskPlan {
  const dataTasks = data && new Set(data.trajectories.map((t) => t.task.id));
  // Enough train tasks that `heldOut` of them are unused, where the split has that many.
  const train = upTo(source, 'train', (dataTasks?.size ?? offlineEpisodes) + heldOut);
  const used = dataTasks ?? new Set(train.slice(0, offlineEpisodes).map((t) => t.id));
  const unused = (tasks: readonly Task[]) => tasks.filter((t) => !used.has(t.id));
  const fromTrain = unused(train).slice(0, heldOut);
  const test =
    fromTrain.length < heldOut ? upTo(source, 'test', used.size + heldOut) : ([] as Task[]);
  const trainIds = new Set(train.map((t) => t.id));
  const fromTest = unused(test)
    .filter((t) => !trainIds.has(t.id))
    .slice(0, heldOut - fromTrain.length);
  if (fromTrain.length + fromTest.length === 0) {
    const offline = data ? `--data ${data.file}` : `--offline-episodes ${offlineEpisodes}`;
    throw new ConfigError(
      `no task left to hold out: the offline data (${offline}) uses all ${train.length} train and ${test.length} test tasks of ${env}, and the held-out episodes need tasks it never saw. Pass offline data on fewer tasks (${data ? 'a --data file of fewer tasks, e.g. dreamgym collect --episodes N plays the first N train tasks' : 'a lower --offline-episodes'}).`,
    );
  }
  return { train, heldOut: [...fromTrain, ...fromTest], fromTest: fromTest.length };
}

/**
 * The first `count` tasks of a split, or all of them where it has fewer: task sources either
 * hand out what they have or refuse a count past their size (a {@link ConfigError}).
 */
function upTo(source: (split: TaskSplit) => TaskSource, split: TaskSplit, count: number): Task[] {
  try {
    return source(split).tasks(split, count);
  } catch (error) {
    if (error instanceof ConfigError) return source(split).tasks(split);
    throw error;
  }
}

/** The episodes of `env` in a recorded trajectory file; none is a mistake, named with its fix. */
async function recordedEpisodes(file: string, env: string): Promise<Trajectory[]> {
  const all = await readTrajectories(file);
  const episodes = all.filter((t) => t.env === env);
  if (episodes.length === 0) {
    const found = [...new Set(all.map((t) => t.env))];
    throw new ConfigError(
      `--free-data ${file} holds no ${env} episodes (${found.length ? `it has ${found.join(', ')}` : 'it is empty'}): pass the --env its episodes were recorded in.`,
    );
  }
  return episodes;
}
