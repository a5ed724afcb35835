import { ratio } from 'fuzzball';
import { TaskError } from '../core/errors.ts';
import { finalReward, isSuccess, type Step, type Task, type Trajectory } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import { webActionKind } from '../experience/web/action-kind.ts';
import type { Policy } from '../policy/policy.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import { collect } from '../rl/collect.ts';

export interface StepFidelity {
  transitions: number;
  /** Share of predicted next-state texts identical to the real ones. */
  exactMatch: number;
  /** Mean normalised edit similarity of predicted and real next-state texts, in [0, 1]. */
  editSimilarity: number;
  /** Mean F1 of predicted vs real admissible actions. */
  actionF1: number;
  rewardMae: number;
  /** Share of steps whose predicted termination equals the real one. */
  terminalAccuracy: number;
}

/**
 * Teacher-forced fidelity. Lemma 1 of the DreamGym paper bounds the sim-to-real gap by the reward
 * error εR and the transition error εP: here εR is `rewardMae` and εP is 1 − `exactMatch` (the
 * total-variation distance between a deterministic env's next state and the model's one answer).
 */
export interface TeacherForcedReport extends StepFidelity {
  /** The same measures per kind of action (`search`, `click[item]`, `go to`, `click:link` …). */
  byAction: Record<string, StepFidelity>;
  /**
   * The same measures on the real steps that changed the state and on those that did not
   * (EnvSimBench's finding: models match the steps that change nothing and miss the others).
   */
  byChange: { changed: StepFidelity; unchanged: StepFidelity };
  /**
   * How the model's `uncertainty` tracks its errors, where it gives one: its mean on the
   * predictions whose next state was exactly right and on the others.
   */
  uncertainty?: { whenRight: number; whenWrong: number; predictions: number };
}

export interface FreeRunningReport {
  episodes: number;
  real: EpisodeStats;
  synthetic: EpisodeStats;
  /** The synthetic episodes' actions replayed in the real env (see {@link replayInReal}). */
  replayed: ReplayReport;
}

/** How many synthetic successes the real env confirms when it is given the very same actions. */
export interface ReplayCounts {
  episodes: number;
  /** Synthetic episodes that succeeded. */
  syntheticSuccesses: number;
  /** Of those, the ones whose actions succeed in the real env too. */
  confirmed: number;
  /**
   * Share of synthetic successes the real env does not confirm: rewards an agent trained in the
   * synthetic env would learn from wrongly (0 when there was no synthetic success).
   */
  falsePositiveShare: number;
  /** Synthetic failures whose actions succeed in the real env (rewards withheld). */
  missed: number;
}

export interface ReplayReport extends ReplayCounts {
  /** The same counts per kind of task, when a kind was given (WebArena's for web tasks). */
  byKind?: Record<string, ReplayCounts>;
  /**
   * Of the replayed episodes, those on tasks the curriculum generated: the offline mutators'
   * variations carry a spec the real env builds, so they are replayed and counted above.
   */
  generated: number;
  /**
   * Episodes not replayed because the real env cannot build their task (the LLM task generator's
   * tasks have no spec); they are in no count above.
   */
  unreplayable: number;
}

/** Recorded episodes' own outcomes, and their actions replayed in the real env. */
export interface RecordedReport {
  episodes: number;
  /** The outcomes the env that recorded them (a synthetic one) gave. */
  recorded: EpisodeStats;
  replayed: ReplayReport;
}

/** Success rate, mean final reward and mean length of some episodes. */
export interface EpisodeStats {
  successRate: number;
  meanReward: number;
  meanSteps: number;
}

/**
 * Teacher-forced fidelity: replays held-out real trajectories step by step, asks the model for
 * each real (state, action) with demonstrations retrieved from the buffer (never from the
 * trajectory itself), and compares its prediction with what really happened.
 */
export async function teacherForced({
  model,
  buffer,
  trajectories,
  k = 4,
}: {
  model: ExperienceModel;
  buffer: ReplayBuffer;
  trajectories: readonly Trajectory[];
  k?: number;
}): Promise<TeacherForcedReport> {
  const rows: Array<
    { kind: string; changed: boolean; uncertainty?: number } & Omit<StepFidelity, 'transitions'>
  > = [];
  for (const trajectory of trajectories) {
    for (const [t, real] of trajectory.steps.entries()) {
      const state = t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation;
      const history = trajectory.steps.slice(0, t);
      const demonstrations = await buffer.retrieve(
        { state, action: real.action, task: trajectory.task },
        k,
        {
          env: trajectory.env,
          provenance: ['real-offline', 'real-online'],
          excludeTrajectory: trajectory.id,
        },
      );
      const predicted = await model.predict({
        task: trajectory.task,
        history,
        initial: trajectory.initial,
        state,
        action: real.action,
        demonstrations,
      });
      rows.push({
        kind: actionKind(real.action, state.text),
        changed: real.observation.text !== state.text,
        ...(predicted.uncertainty !== undefined && { uncertainty: predicted.uncertainty }),
        exactMatch: predicted.nextState.text === real.observation.text ? 1 : 0,
        editSimilarity:
          ratio(predicted.nextState.text, real.observation.text, { full_process: false }) / 100,
        actionF1: f1(predicted.nextState.actions ?? [], real.observation.actions ?? []),
        rewardMae: Math.abs(predicted.reward - real.reward),
        terminalAccuracy: predicted.terminated === real.terminated ? 1 : 0,
      });
    }
  }
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  const doubted = rows.filter((r) => r.uncertainty !== undefined);
  const meanDoubt = (of: typeof rows) =>
    of.reduce((sum, r) => sum + (r.uncertainty as number), 0) / Math.max(1, of.length);
  return {
    ...average(rows),
    byAction: Object.fromEntries(
      kinds.map((kind) => [kind, average(rows.filter((r) => r.kind === kind))]),
    ),
    byChange: {
      changed: average(rows.filter((r) => r.changed)),
      unchanged: average(rows.filter((r) => !r.changed)),
    },
    ...(doubted.length > 0 && {
      uncertainty: {
        whenRight: meanDoubt(doubted.filter((r) => r.exactMatch === 1)),
        whenWrong: meanDoubt(doubted.filter((r) => r.exactMatch === 0)),
        predictions: doubted.length,
      },
    }),
  };
}

/**
 * Free-running fidelity: the same policy plays the same tasks in the real and the synthetic env;
 * compares success, reward and episode length, then replays the synthetic episodes' actions in
 * the real env ({@link replayInReal}), which tells a synthetic env that rewards the wrong actions
 * from one whose rates merely agree.
 */
export async function freeRunning({
  policy,
  realEnv,
  syntheticEnv,
  tasks,
  seed = 0,
  kindOf,
}: {
  policy: Policy;
  realEnv: Env;
  syntheticEnv: Env;
  tasks: readonly Task[];
  seed?: number;
  /** A task's kind, to break the replay down by (e.g. `webTaskKind`). */
  kindOf?: (task: Task) => string;
}): Promise<FreeRunningReport> {
  const run = (env: Env) =>
    collect({ env, policy, tasks, episodes: tasks.length, seed, provenance: 'real-online' });
  const real = stats(await run(realEnv));
  const synthetic = await run(syntheticEnv);
  return {
    episodes: tasks.length,
    real,
    synthetic: stats(synthetic),
    replayed: await replayInReal({ trajectories: synthetic, realEnv, ...(kindOf && { kindOf }) }),
  };
}

/**
 * Replays each synthetic episode's actions, one by one, in the real env on the same task (from
 * the same reset seed) and counts the synthetic successes whose very actions succeed for real. A
 * synthetic page that departs from the real one makes its later actions miss there too: that is
 * counted against the synthetic env, as it should be. Success is {@link isSuccess} on both sides.
 * A generated task is replayed like a seed task when the real env builds it (the offline
 * mutators' variations carry a spec); one it cannot build ({@link TaskError}: the LLM task
 * generator's tasks have no spec) is counted as unreplayable, and in nothing else.
 */
export async function replayInReal({
  trajectories,
  realEnv,
  kindOf,
}: {
  trajectories: readonly Trajectory[];
  realEnv: Env;
  kindOf?: (task: Task) => string;
}): Promise<ReplayReport> {
  const rows: Array<{ kind: string; synthetic: boolean; real: boolean }> = [];
  let unreplayable = 0;
  let generated = 0;
  for (const trajectory of trajectories) {
    try {
      await realEnv.reset({
        task: trajectory.task,
        ...(trajectory.seed !== undefined && { seed: trajectory.seed }),
      });
    } catch (error) {
      if (!(error instanceof TaskError)) throw error;
      unreplayable++;
      continue;
    }
    let real = false;
    for (const { action } of trajectory.steps) {
      const result = await realEnv.step(action);
      real = result.terminated && result.reward >= 1;
      if (result.terminated || result.truncated) break;
    }
    rows.push({ kind: kindOf?.(trajectory.task) ?? '', synthetic: isSuccess(trajectory), real });
    if (trajectory.task.origin === 'generated') generated++;
  }
  const counts = (group: typeof rows): ReplayCounts => {
    const successes = group.filter((r) => r.synthetic);
    const confirmed = successes.filter((r) => r.real).length;
    return {
      episodes: group.length,
      syntheticSuccesses: successes.length,
      confirmed,
      falsePositiveShare: successes.length ? 1 - confirmed / successes.length : 0,
      missed: group.filter((r) => !r.synthetic && r.real).length,
    };
  };
  if (!kindOf) return { ...counts(rows), generated, unreplayable };
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  return {
    ...counts(rows),
    byKind: Object.fromEntries(kinds.map((k) => [k, counts(rows.filter((r) => r.kind === k))])),
    generated,
    unreplayable,
  };
}

/**
 * Replays episodes recorded elsewhere — e.g. what `dreamgym serve --env synthetic:NAME --record
 * FILE` wrote while a trainer's policy drove it — in the real env ({@link replayInReal}): the
 * rewards a policy unlike ours was actually paid, checked action by action.
 */
export async function replayRecorded({
  trajectories,
  realEnv,
  kindOf,
}: {
  trajectories: readonly Trajectory[];
  realEnv: Env;
  kindOf?: (task: Task) => string;
}): Promise<RecordedReport> {
  return {
    episodes: trajectories.length,
    recorded: stats(trajectories),
    replayed: await replayInReal({ trajectories, realEnv, ...(kindOf && { kindOf }) }),
  };
}

/**
 * A coarse name for an action, to break fidelity down: `search`, `click[Buy Now]`, `click[item]`,
 * `go to`; on web pages (`stateText` an accessibility tree) the web kinds, e.g. `click:link`,
 * `type+enter (submit)`, `navigate`, `stop` (see {@link webActionKind}).
 */
export function actionKind(action: string, stateText?: string): string {
  const web = stateText === undefined ? undefined : webActionKind(action, stateText);
  if (web) return web;
  const bracket = /^\s*([a-z_]+)\s*\[(.*)\]\s*$/is.exec(action);
  if (bracket) {
    const [, verb, arg] = bracket as unknown as [string, string, string];
    if (verb.toLowerCase() !== 'click') return verb.toLowerCase();
    if (/^[A-Z0-9]{10}$/.test(arg) && /\d/.test(arg)) return 'click[item]';
    if (/^(Back to Search|Next >|< Prev|Description|Features|Buy Now)$/.test(arg))
      return `click[${arg}]`;
    return 'click[option]';
  }
  const words = action.trim().toLowerCase().split(/\s+/);
  return words[0] === 'go' ? 'go to' : (words[0] ?? '');
}

function stats(trajectories: readonly Trajectory[]): EpisodeStats {
  const n = trajectories.length || 1;
  return {
    successRate: trajectories.filter(isSuccess).length / n,
    meanReward: trajectories.reduce((s, t) => s + finalReward(t), 0) / n,
    meanSteps: trajectories.reduce((s, t) => s + t.steps.length, 0) / n,
  };
}

function average(rows: ReadonlyArray<Omit<StepFidelity, 'transitions'>>): StepFidelity {
  const n = rows.length || 1;
  const mean = (key: keyof Omit<StepFidelity, 'transitions'>) =>
    rows.reduce((s, r) => s + r[key], 0) / n;
  return {
    transitions: rows.length,
    exactMatch: mean('exactMatch'),
    editSimilarity: mean('editSimilarity'),
    actionF1: mean('actionF1'),
    rewardMae: mean('rewardMae'),
    terminalAccuracy: mean('terminalAccuracy'),
  };
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
