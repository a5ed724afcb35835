/**
 * The built-in web apps in the browser env (issue 15): per site, reset p50 (a fresh copy of the
 * site's state and its first page, tree rendered), step p50/p90 of the scripted expert's steps,
 * and expert episodes per minute with 1 and 4 episodes in parallel (each its own context, one
 * shared Chromium). `BENCH_WEB_EPISODES` sets the episodes per throughput run (default 24).
 */
import { loadavg } from 'node:os';
import { Rng } from '../src/core/rng.ts';
import type { Env } from '../src/envs/env.ts';
import { envEntry } from '../src/envs/registry.ts';
import { makePolicy } from '../src/policy/registry.ts';
import { type Measurement, measure } from './measure.ts';

const SITES = ['web:forum', 'web:store'];

function summary(samples: number[]): Measurement {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    median: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    mean: sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length),
    min: sorted[0] ?? 0,
    n: sorted.length,
  };
}

/** Plays the expert on `tasks` with `parallel` envs; step latencies and episodes per minute. */
async function expertRun(site: string, parallel: number, episodes: number) {
  const entry = envEntry(site);
  const tasks = entry.tasks({ split: 'test' }).tasks('test', episodes);
  const policy = makePolicy('expert', { env: site, epsilon: 0 });
  const steps: number[] = [];
  let solved = 0;
  let next = 0;
  const worker = async (env: Env) => {
    try {
      for (let i = next++; i < tasks.length; i = next++) {
        const task = tasks[i];
        if (!task) break;
        let { observation } = await env.reset({ task });
        const history = [];
        const rng = new Rng(i);
        for (;;) {
          const { action } = await policy.act(observation, { task, history, rng });
          const started = performance.now();
          const result = await env.step(action);
          steps.push(performance.now() - started);
          history.push({ action, ...result });
          observation = result.observation;
          if (result.terminated || result.truncated) {
            if (result.reward >= 1) solved++;
            break;
          }
        }
      }
    } finally {
      await env.close();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: parallel }, () => worker(entry.make({ split: 'test' }))));
  const minutes = (performance.now() - started) / 60_000;
  return {
    parallel,
    episodes,
    solved,
    episodesPerMinute: episodes / minutes,
    step: summary(steps),
  };
}

export default async function webBench() {
  const episodes = Number(process.env.BENCH_WEB_EPISODES ?? 24);
  const results: Record<string, unknown> = { loadAverageAtStart: loadavg()[0] };
  for (const site of SITES) {
    const entry = envEntry(site);
    const tasks = entry.tasks({ split: 'test' }).tasks('test', 40);
    const env = entry.make({ split: 'test' });
    let i = 0;
    const reset = await measure(() => env.reset({ task: tasks[i++ % tasks.length] }), {
      warmup: 3,
      iterations: 30,
    });
    await env.close();
    const one = await expertRun(site, 1, episodes);
    const four = await expertRun(site, 4, episodes);
    results[site] = { reset, expert: [one, four] };
    console.log(
      `${site}: reset p50 ${reset.median.toFixed(0)} ms; expert step p50 ${one.step.median.toFixed(0)} ms, p90 ${one.step.p90.toFixed(0)} ms; ` +
        `${one.episodesPerMinute.toFixed(1)} episodes/min with 1 context, ${four.episodesPerMinute.toFixed(1)} with 4 (solved ${one.solved}/${episodes}, ${four.solved}/${episodes})`,
    );
  }
  results.loadAverageAtEnd = loadavg()[0];
  return results;
}
