/**
 * The generic LLM-free experience model (issue 37) against the real envs, beside the
 * nearest-neighbour baseline and, where a family has one, its hand-written model: on the test
 * beds nobody modelled (support-desk, keys-and-doors, booking) and on webshop and household.
 *
 * Per env: the scripted expert (ε = BENCH_GENERIC_EPSILON, default 0.2) plays the first
 * BENCH_GENERIC_OFFLINE (300) train tasks into a buffer; held-out real episodes of the same
 * expert on BENCH_GENERIC_HELD_OUT (60) test tasks are replayed teacher-forced (each step asked
 * with the real history, demonstrations never from the episode itself):
 * - exact: the next state's text is the real one, character for character;
 * - same shape: it has the real one's shape (JSON: the same keys and value types; text: the
 *   same lines by their keys), whatever the values;
 * - action F1 of the listed admissible actions, reward MAE, terminal accuracy;
 * - endings: on real terminal steps, the predicted success (reward 1, ended) against the real
 *   one (how often the model calls a failure a success, and a success a failure), and for the
 *   generic model its outcome model's out-of-fold calibration on the offline episodes.
 * Then the replay check (`replayInReal`): a policy plays the train tasks in the synthetic env and
 * its synthetic successes are replayed action for action in the real env; the share the real env
 * does not confirm is the false-positive rate. The policy is the scripted expert with ε = 0.5
 * (a learner that errs: successes and failures both), and, with BENCH_GENERIC_RL=1, a choice
 * policy trained by GRPO in the synthetic env from BC (see generic-rl.ts for held-out success of
 * BC, real GRPO and DreamGym GRPO).
 * BENCH_GENERIC_ENVS narrows the envs (comma-separated).
 */
import { ratio } from 'fuzzball';
import { isSuccess, type Step, type Trajectory } from '../src/core/types.ts';
import type { ExperienceModel } from '../src/experience/experience-model.ts';
import { GenericExperienceModel } from '../src/experience/generic/generic-model.ts';
import { type ExperienceChoice, llmFreeModel } from '../src/experience/llm-free.ts';
import { envSetup, offlineData, syntheticFactory } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import { makePolicy } from '../src/policy/registry.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { collect } from '../src/rl/collect.ts';

const ENVS = (
  process.env.BENCH_GENERIC_ENVS ?? 'support-desk,keys-and-doors,booking,webshop,household'
).split(',');
const OFFLINE = Number(process.env.BENCH_GENERIC_OFFLINE ?? 300);
const HELD_OUT = Number(process.env.BENCH_GENERIC_HELD_OUT ?? 60);
const EPSILON = Number(process.env.BENCH_GENERIC_EPSILON ?? 0.2);
/** Train tasks the replay check plays. */
const REPLAY_TASKS = Number(process.env.BENCH_GENERIC_REPLAY ?? 100);
/** Families with a hand-written model of their own. */
const HAND_WRITTEN = new Set(['webshop', 'household']);

interface Fidelity {
  transitions: number;
  exact: number;
  sameShape: number;
  editSimilarity: number;
  actionF1: number;
  rewardMae: number;
  terminalAccuracy: number;
  endings: {
    steps: number;
    realSuccessRate: number;
    predictedSuccessRate: number;
    /** Real failures the model scored a success. */
    falseSuccesses: number;
    /** Real successes the model scored a failure. */
    missedSuccesses: number;
  };
  msPerStep: number;
}

export default async function genericBench() {
  const results: Record<string, unknown> = {};
  for (const env of ENVS) {
    console.log(`\n-- ${env}`);
    results[env] = await benchEnv(env);
  }
  return {
    offlineEpisodes: OFFLINE,
    heldOutEpisodes: HELD_OUT,
    epsilon: EPSILON,
    replayTasks: REPLAY_TASKS,
    envs: results,
  };
}

async function benchEnv(env: string) {
  const setup = envSetup(env, { trainTasks: OFFLINE, testTasks: HELD_OUT });
  const offline = await offlineData(setup, { episodes: OFFLINE, epsilon: EPSILON, seed: 1 });
  const realEnv = setup.makeReal();
  const heldOut = await collect({
    env: realEnv,
    policy: makePolicy('expert', { env: setup.name, epsilon: EPSILON }),
    tasks: setup.testTasks,
    episodes: setup.testTasks.length,
    seed: 2,
    provenance: 'real-online',
  });
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  const choices: ExperienceChoice[] = HAND_WRITTEN.has(env)
    ? ['generic', 'auto', 'nearest']
    : ['generic', 'nearest'];
  const rows: Record<string, unknown> = {};
  for (const choice of choices) {
    const name = choice === 'auto' ? 'hand-written' : choice;
    const started = performance.now();
    const model = await llmFreeModel(setup.name, buffer, { experience: choice });
    const learnSeconds = (performance.now() - started) / 1000;
    const fidelity = await teacherForcedRow(model, buffer, heldOut);
    const replay = await replayRow(setup, buffer, model, realEnv);
    rows[name] = {
      model: model.id,
      learnSeconds,
      ...(model instanceof GenericExperienceModel && {
        outcomeCalibration: model.knowledge.outcome.calibration,
      }),
      teacherForced: fidelity,
      replay,
    };
    console.log(
      `${env} ${name}: exact ${pct(fidelity.exact)}, same shape ${pct(fidelity.sameShape)}, action F1 ${fidelity.actionF1.toFixed(3)}, reward MAE ${fidelity.rewardMae.toFixed(3)}, false successes ${fidelity.endings.falseSuccesses}/${fidelity.endings.steps}; replay: ${replay.confirmed}/${replay.syntheticSuccesses} synthetic successes confirmed (false-positive ${pct(replay.falsePositiveShare)}), ${fidelity.msPerStep.toFixed(1)} ms/step`,
    );
  }
  await realEnv.close();
  await buffer.close();
  return {
    offlineSuccessRate: offline.filter(isSuccess).length / offline.length,
    heldOutSuccessRate: heldOut.filter(isSuccess).length / heldOut.length,
    models: rows,
  };
}

/** Teacher-forced fidelity on held-out real episodes (see the file's description). */
async function teacherForcedRow(
  model: ExperienceModel,
  buffer: SqliteReplayBuffer,
  trajectories: readonly Trajectory[],
): Promise<Fidelity> {
  const sums = { exact: 0, sameShape: 0, edit: 0, f1: 0, mae: 0, terminal: 0 };
  const endings = { steps: 0, real: 0, predicted: 0, falseSuccesses: 0, missedSuccesses: 0 };
  let n = 0;
  let ms = 0;
  for (const trajectory of trajectories) {
    for (const [t, real] of trajectory.steps.entries()) {
      const state = t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation;
      const started = performance.now();
      const demonstrations = await buffer.retrieve(
        { state, action: real.action, task: trajectory.task },
        4,
        {
          env: trajectory.env,
          provenance: ['real-offline', 'real-online'],
          excludeTrajectory: trajectory.id,
        },
      );
      const predicted = await model.predict({
        task: trajectory.task,
        history: trajectory.steps.slice(0, t),
        state,
        action: real.action,
        demonstrations,
      });
      ms += performance.now() - started;
      n++;
      const text = predicted.nextState.text;
      sums.exact += text === real.observation.text ? 1 : 0;
      sums.sameShape += shapeOf(text) === shapeOf(real.observation.text) ? 1 : 0;
      sums.edit += ratio(text, real.observation.text, { full_process: false }) / 100;
      sums.f1 += f1(predicted.nextState.actions ?? [], real.observation.actions ?? []);
      sums.mae += Math.abs(predicted.reward - real.reward);
      sums.terminal += predicted.terminated === real.terminated ? 1 : 0;
      if (real.terminated) {
        const realSuccess = real.reward >= 1;
        const predictedSuccess = predicted.terminated && predicted.reward >= 1;
        endings.steps++;
        if (realSuccess) endings.real++;
        if (predictedSuccess) endings.predicted++;
        if (predictedSuccess && !realSuccess) endings.falseSuccesses++;
        if (!predictedSuccess && realSuccess) endings.missedSuccesses++;
      }
    }
  }
  const mean = (x: number) => x / Math.max(1, n);
  return {
    transitions: n,
    exact: mean(sums.exact),
    sameShape: mean(sums.sameShape),
    editSimilarity: mean(sums.edit),
    actionF1: mean(sums.f1),
    rewardMae: mean(sums.mae),
    terminalAccuracy: mean(sums.terminal),
    endings: {
      steps: endings.steps,
      realSuccessRate: endings.real / Math.max(1, endings.steps),
      predictedSuccessRate: endings.predicted / Math.max(1, endings.steps),
      falseSuccesses: endings.falseSuccesses,
      missedSuccesses: endings.missedSuccesses,
    },
    msPerStep: mean(ms),
  };
}

/** An erring expert plays train tasks in the synthetic env; its successes are replayed for real. */
async function replayRow(
  setup: ReturnType<typeof envSetup>,
  buffer: SqliteReplayBuffer,
  model: ExperienceModel,
  realEnv: ReturnType<ReturnType<typeof envSetup>['makeReal']>,
) {
  const synthetic = syntheticFactory(setup, buffer, model)();
  const tasks = setup.trainTasks.slice(0, REPLAY_TASKS);
  const played = await collect({
    env: synthetic,
    policy: makePolicy('expert', { env: setup.name, epsilon: 0.5 }),
    tasks,
    episodes: tasks.length,
    seed: 3,
    provenance: 'synthetic',
  });
  await synthetic.close();
  return {
    policy: 'expert(eps=0.5)',
    syntheticSuccessRate: played.filter(isSuccess).length / played.length,
    ...(await replayInReal({ trajectories: played, realEnv })),
  };
}

/**
 * A text's shape, its values set aside: for JSON, its keys and the types of its values (arrays
 * by their first element); for other text, each line's label (its words up to the first
 * punctuation after a word, or its first two words, digits masked).
 */
function shapeOf(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) return jsonShape(parsed);
  } catch {
    // Not JSON: a page of lines.
  }
  return text
    .split('\n')
    .map((line) => {
      const label = /^\W*(\w+)(?:(\W)|\s+(\w+))?/.exec(line.trim());
      return label ? label[0].replace(/\d+/g, '9').toLowerCase() : '';
    })
    .join('\n');
}

function jsonShape(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length > 0 ? jsonShape(value[0]) : ''}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}:${jsonShape(v)}`)
      .join(',')}}`;
  return typeof value;
}

function f1(predicted: readonly string[], real: readonly string[]): number {
  if (predicted.length === 0 && real.length === 0) return 1;
  const truth = new Set(real);
  const hits = new Set(predicted.filter((a) => truth.has(a))).size;
  if (hits === 0) return 0;
  const precision = hits / new Set(predicted).size;
  const recall = hits / truth.size;
  return (2 * precision * recall) / (precision + recall);
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}
