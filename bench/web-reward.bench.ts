/**
 * How well the LLM-free web model's `stop` reward tells a learning policy's right answers from
 * wrong ones, per site: offline expert episodes (ε = 0.3) in the real browser; a BC policy cloned
 * from them plays other train tasks in the real browser (sampled, twice each); the reward model
 * learnt from the expert episodes scores each of those `stop`s, against the real evaluator. Two
 * conditions: the tasks played are not in the buffer (the template and logistic layers decide),
 * and they are (the same-task layer applies too).
 * Sizes: BENCH_REWARD_OFFLINE (default 120) expert episodes and BENCH_REWARD_PLAYED (default
 * 120) tasks per site; BENCH_REWARD_SITES (default `forum`).
 */
import { initTf } from '../src/core/tf.ts';
import type { Trajectory } from '../src/core/types.ts';
import { WebKnowledge } from '../src/experience/web/knowledge.ts';
import { collectWebDemos } from '../src/pipeline/web-demo.ts';
import { webSetup } from '../src/pipeline/web-setup.ts';
import { ChoicePolicy } from '../src/policy/choice/choice-policy.ts';
import { behaviourCloning } from '../src/rl/bc.ts';
import { rollout } from '../src/rl/rollout.ts';

const OFFLINE = Number(process.env.BENCH_REWARD_OFFLINE ?? 120);
const PLAYED = Number(process.env.BENCH_REWARD_PLAYED ?? 120);
const SITES = (process.env.BENCH_REWARD_SITES ?? 'forum').split(',');

interface Confusion {
  outcomes: number;
  realSuccesses: number;
  truePositives: number;
  falsePositives: number;
  precision: number;
  recall: number;
  accuracy: number;
}

/** The reward model learnt from `offline` scoring the `stop`s of `played`, against the real reward. */
function confusion(offline: readonly Trajectory[], played: readonly Trajectory[]): Confusion {
  const model = WebKnowledge.fromTrajectories(offline).rewards();
  const outcomes = WebKnowledge.fromTrajectories(played).outcomes;
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (const o of outcomes) {
    const predicted = model.predict(o).reward === 1;
    const real = o.reward >= 1;
    if (predicted && real) tp++;
    else if (predicted) fp++;
    else if (real) fn++;
    else tn++;
  }
  return {
    outcomes: outcomes.length,
    realSuccesses: tp + fn,
    truePositives: tp,
    falsePositives: fp,
    precision: tp / Math.max(1, tp + fp),
    recall: tp / Math.max(1, tp + fn),
    accuracy: (tp + tn) / Math.max(1, outcomes.length),
  };
}

export default async function webReward() {
  await initTf();
  const results: Record<string, unknown> = {};
  for (const name of SITES) {
    const site = `web:${name}`;
    const setup = webSetup(site, 1, 12);
    const started = performance.now();
    // Expert episodes on train tasks [PLAYED, PLAYED + OFFLINE): none of the played tasks.
    const shifted = { ...setup, trainTasks: setup.trainTasks.slice(PLAYED) };
    const { offline } = await collectWebDemos(shifted, {
      episodes: OFFLINE,
      epsilon: 0.3,
      seed: 0,
      parallel: 4,
    });
    const policy = new ChoicePolicy({ seed: 0, temperature: 1 });
    behaviourCloning(policy, offline, { seed: 0, epochs: 30, learningRate: 3e-3 });
    const tasks = setup.trainTasks.slice(0, PLAYED);
    const played = (
      await rollout({
        makeEnv: setup.makeReal,
        policy,
        tasks: [...tasks, ...tasks],
        seed: 5,
        provenance: 'real-online',
        concurrency: 4,
      })
    ).map((e) => e.trajectory);
    // The same tasks in the buffer: expert episodes of the played tasks added.
    const { offline: sameTasks } = await collectWebDemos(
      { ...setup, trainTasks: tasks },
      { episodes: PLAYED, epsilon: 0.3, seed: 1, parallel: 4 },
    );
    results[site] = {
      offlineEpisodes: offline.length,
      playedEpisodes: played.length,
      unseenTasks: confusion(offline, played),
      seenTasks: confusion([...offline, ...sameTasks], played),
      seconds: (performance.now() - started) / 1000,
    };
    console.log(site, JSON.stringify(results[site]));
  }
  return results;
}
