/**
 * Is the generic LLM-free model's world the env's own (issue 53, item 4)? On the test beds nobody
 * modelled by hand (support-desk, keys-and-doors, booking), over BENCH_GENERIC_WORLD_SEEDS seeds
 * (default 3): the scripted expert (ε = 0.2) plays BENCH_GENERIC_WORLD_OFFLINE (200) train tasks
 * into a buffer, a choice policy is cloned from them (BC), and
 * - **success, real against synthetic**: the BC policy plays the offline tasks, greedy, in the
 *   real env and in the synthetic env of the generic model (the same tasks, the same policy); the
 *   synthetic success counts an unjudged ending as a failure, and the share of such endings is
 *   reported beside it. The must-show: within 10 points.
 * - **actions offered**: the share of the actions a real state listed that the synthetic env
 *   lists at the same point, at the start (the synthetic env's reset on the task against the real
 *   episode's first state) and teacher-forced after each real step (the synthetic env reset from
 *   the real state before the step, the real action taken: its listed actions against the real
 *   next state's). Of those, "named" counts only actions whose arguments the instruction names
 *   (an order id, a date), and "next" the action the real episode took next.
 * - **rewards that hold**: the BC policy's synthetic successes on the offline tasks, replayed in
 *   the real env: the share that fails there.
 */

import { initTf } from '../src/core/tf.ts';
import { isJudged, isSuccess, type Trajectory } from '../src/core/types.ts';
import type { Env } from '../src/envs/env.ts';
import { type ActionGrammar, isListed } from '../src/experience/generic/action-grammar.ts';
import { GenericExperienceModel } from '../src/experience/generic/generic-model.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { envSetup, offlineData, syntheticFactory } from '../src/pipeline/experiment.ts';
import { replayInReal } from '../src/pipeline/fidelity.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { rollout } from '../src/rl/rollout.ts';

const ENVS = (process.env.BENCH_GENERIC_WORLD_ENVS ?? 'support-desk,keys-and-doors,booking').split(
  ',',
);
const SEEDS = Number(process.env.BENCH_GENERIC_WORLD_SEEDS ?? 3);
const OFFLINE = Number(process.env.BENCH_GENERIC_WORLD_OFFLINE ?? 200);

/** Listed actions of real states, and how many of them the synthetic env listed too. */
interface Offered {
  real: number;
  offered: number;
}

interface SeedRow {
  realSuccess: number;
  syntheticSuccess: number;
  /** Synthetic minus real success, in points. */
  gapPoints: number;
  syntheticUnjudged: number;
  syntheticSuccesses: number;
  falsePositive: number;
  initialOffered: number;
  initialNamedOffered: number;
  nextOffered: number;
  namedOffered: number;
}

export default async function genericWorldBench() {
  await initTf();
  const envs: Record<string, unknown> = {};
  for (const env of ENVS) {
    const seeds: SeedRow[] = [];
    for (let seed = 0; seed < SEEDS; seed++) seeds.push(await runSeed(env, seed));
    envs[env] = { seeds, mean: meanOf(seeds) };
  }
  return { offlineEpisodes: OFFLINE, seeds: SEEDS, envs };
}

async function runSeed(env: string, seed: number): Promise<SeedRow> {
  const setup = envSetup(env, { trainTasks: OFFLINE, testTasks: 0 });
  const offline = await offlineData(setup, { episodes: OFFLINE, epsilon: 0.2, seed: seed + 1 });
  const buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  const model = await llmFreeModel(setup.name, buffer, { experience: 'generic' });
  if (!(model instanceof GenericExperienceModel)) throw new Error('expected the generic model');
  const synthetic = syntheticFactory(setup, buffer, model);
  const policy = new ChoicePolicy({ seed, family: setup.name });
  behaviourCloning(policy, offline, { seed });
  policy.temperature = 0;
  const tasks = offline.map((t) => t.task);
  const play = async (makeEnv: () => Env, real: boolean) =>
    (
      await rollout({
        makeEnv,
        policy,
        tasks,
        seed: 300 + seed,
        provenance: real ? 'real-online' : 'synthetic',
      })
    ).map((e) => e.trajectory);
  const realEpisodes = await play(setup.makeReal, true);
  const dreamt = await play(synthetic, false);
  const replayEnv = setup.makeReal();
  const replay = await replayInReal({
    trajectories: dreamt.filter(isSuccess),
    realEnv: replayEnv,
  });
  await replayEnv.close();

  const offered = await actionsOffered(offline, synthetic, model.knowledge.grammar);
  await buffer.close();
  policy.dispose();
  const share = (xs: readonly Trajectory[], pick: (t: Trajectory) => boolean) =>
    xs.filter(pick).length / Math.max(1, xs.length);
  const realSuccess = share(realEpisodes, isSuccess);
  const syntheticSuccess = share(dreamt, isSuccess);
  const row: SeedRow = {
    realSuccess,
    syntheticSuccess,
    gapPoints: 100 * (syntheticSuccess - realSuccess),
    syntheticUnjudged: share(dreamt, (t) => !isJudged(t)),
    syntheticSuccesses: dreamt.filter(isSuccess).length,
    falsePositive: replay.falsePositiveShare,
    initialOffered: ratio(offered.initial),
    initialNamedOffered: ratio(offered.initialNamed),
    nextOffered: ratio(offered.next),
    namedOffered: ratio(offered.named),
  };
  console.log(
    `${env} seed ${seed}: BC on the offline tasks real ${pct(realSuccess)}, synthetic ${pct(syntheticSuccess)} (${pct(row.syntheticUnjudged)} unjudged), ${row.syntheticSuccesses} synthetic successes of which ${pct(row.falsePositive)} fail on replay; offered: initial ${pct(row.initialOffered)} (named ${pct(row.initialNamedOffered)}), after a real step ${pct(row.nextOffered)} of next actions, ${pct(row.namedOffered)} of instruction-named actions`,
  );
  return row;
}

/**
 * How many of the real states' listed actions the synthetic env listed at the same point: at the
 * start, and teacher-forced after each real step (reset from the state before it, then the real
 * action).
 */
async function actionsOffered(
  offline: readonly Trajectory[],
  synthetic: () => Env,
  grammar: ActionGrammar,
): Promise<{ initial: Offered; initialNamed: Offered; next: Offered; named: Offered }> {
  const counts = {
    initial: { real: 0, offered: 0 },
    initialNamed: { real: 0, offered: 0 },
    next: { real: 0, offered: 0 },
    named: { real: 0, offered: 0 },
  };
  const env = synthetic();
  for (const trajectory of offline) {
    const instruction = trajectory.task.instruction;
    const start = await env.reset({ task: trajectory.task });
    tally(counts.initial, trajectory.initial.actions ?? [], start.observation.actions ?? []);
    tally(
      counts.initialNamed,
      (trajectory.initial.actions ?? []).filter((a) => named(a, instruction, grammar)),
      start.observation.actions ?? [],
    );
    for (let t = 0; t < trajectory.steps.length; t++) {
      const real = trajectory.steps[t];
      if (!real || real.info?.invalidAction !== undefined) continue;
      await env.reset({ from: { trajectory: trajectory.id, step: t } });
      const step = await env.step(real.action);
      const listed = step.observation.actions ?? [];
      const following = trajectory.steps[t + 1];
      if (following && (real.observation.actions ?? []).includes(following.action))
        tally(counts.next, [following.action], listed);
      tally(
        counts.named,
        (real.observation.actions ?? []).filter((a) => named(a, instruction, grammar)),
        listed,
      );
    }
  }
  await env.close();
  return counts;
}

function tally(count: Offered, real: readonly string[], listed: readonly string[]): void {
  for (const action of real) {
    count.real++;
    if (isListed(listed, action)) count.offered++;
  }
}

/**
 * True when `action` has values (as the buffer's grammar reads them, not a `<slot>`) and the
 * instruction names every one.
 */
function named(action: string, instruction: string, grammar: ActionGrammar): boolean {
  const { values } = grammar.parse(action);
  const text = instruction.toLowerCase();
  return (
    values.length > 0 && values.every((v) => !/^<.*>$/.test(v) && text.includes(v.toLowerCase()))
  );
}

function ratio(c: Offered): number {
  return c.real === 0 ? Number.NaN : c.offered / c.real;
}

function meanOf(rows: readonly SeedRow[]): Record<string, number> {
  const keys = Object.keys(rows[0] ?? {}) as Array<keyof SeedRow>;
  return Object.fromEntries(
    keys.map((k) => [k, rows.reduce((s, r) => s + r[k], 0) / Math.max(1, rows.length)]),
  );
}

function pct(x: number): string {
  return Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)}%`;
}
