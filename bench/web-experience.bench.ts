/**
 * The LLM-free web experience model against the real browser env, on the built-in forum and
 * store: offline data from the sites' experts (ε = 0.3) fills a buffer; held-out real episodes on
 * other tasks are replayed teacher-forced (exact match, edit similarity of trees, reward MAE, per
 * action kind); the expert plays the same tasks in the synthetic env (free-running success, real
 * vs synthetic); and the LLM model's prompts on those steps are measured in characters, with the
 * full trees and with the state budget's pruning.
 * Sizes: BENCH_WEB_OFFLINE (default 60) and BENCH_WEB_HELD_OUT (default 20) episodes per site;
 * BENCH_WEB_SITES (default `forum,store`).
 */
import { finalReward, isSuccess, type Step, type Trajectory } from '../src/core/types.ts';
import type { TaskSource } from '../src/envs/env.ts';
import { BrowserEnv } from '../src/envs/web/browser/browser-env.ts';
import { BuiltInSites } from '../src/envs/web/sites/builtin-sites.ts';
import { forumApp } from '../src/envs/web/sites/forum/forum-app.ts';
import { forumTasks } from '../src/envs/web/sites/forum/forum-tasks.ts';
import { storeApp } from '../src/envs/web/sites/store/store-app.ts';
import { storeTasks } from '../src/envs/web/sites/store/store-tasks.ts';
import type { WebAppDefinition } from '../src/envs/web/sites/web-app.ts';
import { evaluateTask } from '../src/envs/web/webarena/evaluate.ts';
import { TimeLimit } from '../src/envs/wrappers/time-limit.ts';
import {
  DEFAULT_LIMITS,
  predictionMessages,
  resolvePromptOptions,
} from '../src/experience/llm/prompt.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { SyntheticEnv } from '../src/experience/synthetic-env.ts';
import { teacherForced } from '../src/pipeline/fidelity.ts';
import { ForumExpert } from '../src/policy/experts/forum-expert.ts';
import { StoreExpert } from '../src/policy/experts/store-expert.ts';
import type { Policy } from '../src/policy/policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { collect } from '../src/rl/collect.ts';

interface Site {
  env: string;
  app: WebAppDefinition;
  tasks: TaskSource;
  expert: () => Policy;
}

const SITES: Record<string, Site> = {
  forum: {
    env: 'web:forum',
    app: forumApp,
    tasks: forumTasks(0),
    expert: () => new ForumExpert({ epsilon: 0.3 }),
  },
  store: {
    env: 'web:store',
    app: storeApp,
    tasks: storeTasks(0),
    expert: () => new StoreExpert({ epsilon: 0.3 }),
  },
};

const OFFLINE = Number(process.env.BENCH_WEB_OFFLINE ?? 60);
const HELD_OUT = Number(process.env.BENCH_WEB_HELD_OUT ?? 20);
const MAX_STEPS = 30;

function episodeStats(trajectories: readonly Trajectory[]) {
  const n = trajectories.length || 1;
  return {
    successRate: trajectories.filter(isSuccess).length / n,
    meanReward: trajectories.reduce((s, t) => s + finalReward(t), 0) / n,
    meanSteps: trajectories.reduce((s, t) => s + t.steps.length, 0) / n,
  };
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

async function promptSizes(buffer: SqliteReplayBuffer, heldOut: readonly Trajectory[]) {
  const pruned = resolvePromptOptions();
  const full = resolvePromptOptions({
    limits: { state: 1e9, history: 1e9, demonstration: 1e9, demonstrationActions: 1e9 },
  });
  const rows: Array<{ full: number; pruned: number; state: number; statePruned: number }> = [];
  for (const t of heldOut) {
    for (const [i, real] of t.steps.entries()) {
      const state = i === 0 ? t.initial : (t.steps[i - 1] as Step).observation;
      const demonstrations = await buffer.retrieve(
        { state, action: real.action, task: t.task },
        4,
        {
          env: t.env,
          provenance: ['real-offline', 'real-online'],
          excludeTrajectory: t.id,
        },
      );
      const request = {
        task: t.task,
        history: t.steps.slice(0, i),
        state,
        action: real.action,
        demonstrations,
      };
      const size = (o: typeof pruned) =>
        predictionMessages(request, o).reduce((s, m) => s + m.content.length, 0);
      const stateOf = (o: typeof pruned) => {
        const user = predictionMessages(request, o)[1]?.content ?? '';
        return user.indexOf('## Action') - user.indexOf('## Current state');
      };
      rows.push({
        full: size(full),
        pruned: size(pruned),
        state: stateOf(full),
        statePruned: stateOf(pruned),
      });
    }
  }
  const summary = (key: keyof (typeof rows)[number]) => {
    const xs = rows.map((r) => r[key]);
    return {
      mean: Math.round(xs.reduce((s, x) => s + x, 0) / (xs.length || 1)),
      p50: quantile(xs, 0.5),
      p90: quantile(xs, 0.9),
      max: Math.max(0, ...xs),
    };
  };
  return {
    prompts: rows.length,
    limits: DEFAULT_LIMITS,
    promptChars: { full: summary('full'), pruned: summary('pruned') },
    stateChars: { full: summary('state'), pruned: summary('statePruned') },
    prunedShare: rows.filter((r) => r.statePruned < r.state).length / (rows.length || 1),
  };
}

async function measure(site: Site) {
  const started = Date.now();
  const env = new BrowserEnv({
    name: site.env,
    sites: new BuiltInSites([site.app]),
    tasks: site.tasks,
    split: 'train',
    evaluate: evaluateTask,
    maxSteps: MAX_STEPS,
  });
  const buffer = SqliteReplayBuffer.open();
  try {
    const train = site.tasks.tasks('train', OFFLINE + HELD_OUT);
    const offline = await collect({
      env,
      policy: site.expert(),
      tasks: train.slice(0, OFFLINE),
      episodes: OFFLINE,
      seed: 1,
      provenance: 'real-offline',
    });
    const heldOutTasks = train.slice(OFFLINE, OFFLINE + HELD_OUT);
    const heldOut = await collect({
      env,
      policy: site.expert(),
      tasks: heldOutTasks,
      episodes: heldOutTasks.length,
      seed: 9,
      provenance: 'real-online',
    });
    const realSeconds = (Date.now() - started) / 1000;
    const realSteps = [...offline, ...heldOut].reduce((s, t) => s + t.steps.length, 0);
    await buffer.add(offline);
    const model = await llmFreeModel(site.env, buffer);
    const forcedStarted = Date.now();
    const forced = await teacherForced({ model, buffer, trajectories: heldOut });
    const forcedSeconds = (Date.now() - forcedStarted) / 1000;
    const synthetic = new TimeLimit(
      new SyntheticEnv({ env: site.env, model, buffer, tasks: { tasks: () => heldOutTasks } }),
      MAX_STEPS,
    );
    const synthStarted = Date.now();
    const played = await collect({
      env: synthetic,
      policy: site.expert(),
      tasks: heldOutTasks,
      episodes: heldOutTasks.length,
      seed: 9,
      provenance: 'real-online',
    });
    const syntheticSteps = played.reduce((s, t) => s + t.steps.length, 0);
    const synthSeconds = (Date.now() - synthStarted) / 1000;
    return {
      env: site.env,
      offline: { episodes: offline.length, ...episodeStats(offline) },
      teacherForced: forced,
      freeRunning: {
        episodes: heldOut.length,
        real: episodeStats(heldOut),
        synthetic: episodeStats(played),
      },
      prompts: await promptSizes(buffer, heldOut),
      timing: {
        realSeconds,
        realStepMs: (1000 * realSeconds) / Math.max(1, realSteps),
        teacherForcedSeconds: forcedSeconds,
        syntheticStepMs: (1000 * synthSeconds) / Math.max(1, syntheticSteps),
      },
    };
  } finally {
    await buffer.close();
    await env.close();
  }
}

export default async function () {
  const names = (process.env.BENCH_WEB_SITES ?? 'forum,store').split(',');
  const results = [];
  for (const name of names) {
    const site = SITES[name.trim()];
    if (!site)
      throw new Error(
        `BENCH_WEB_SITES: unknown site "${name}"; known: ${Object.keys(SITES).join(', ')}`,
      );
    const result = await measure(site);
    console.log(JSON.stringify(result, null, 2));
    results.push(result);
  }
  return results;
}
