/**
 * Synthetic step overhead of the LLM-free experience models with a 100k-transition replay
 * buffer: one SyntheticEnv step = retrieval of 4 demonstrations + the model's prediction, for
 * webshop and household. Target (issue #6): p50 < 1 ms. Queries are steps of held-out real
 * episodes (never seen by the buffer), each asked once, so nothing comes from the retrieval memo.
 * BENCH_SYNTH_SIZE narrows the buffer.
 */
import type { Task, Trajectory } from '../src/core/types.ts';
import { type Step, transitions } from '../src/core/types.ts';
import type { Env } from '../src/envs/env.ts';
import { makeHousehold } from '../src/envs/household/household-env.ts';
import { householdTasks } from '../src/envs/household/tasks.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { HouseholdExpert } from '../src/policy/experts/household-expert.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import type { Policy } from '../src/policy/policy.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { collect } from '../src/rl/collect.ts';
import { measure } from './measure.ts';

const SIZE = Number(process.env.BENCH_SYNTH_SIZE ?? 100_000);

interface Family {
  name: string;
  env: Env;
  tasks: Task[];
  /** The policy of the i-th batch of 1,000 offline episodes. */
  policy: (batch: number) => Policy;
  heldOutPolicy: Policy;
}

async function stepOverhead(family: Family) {
  const buffer = SqliteReplayBuffer.open({ memoSize: 0 });
  let next = 0;
  const episodes = (
    count: number,
    policy: Policy,
    seed: number,
    provenance: Trajectory['provenance'],
  ) => {
    const batch = family.tasks.slice(next, next + count);
    next += count;
    return collect({
      env: family.env,
      policy,
      tasks: batch,
      episodes: batch.length,
      seed,
      provenance,
    });
  };
  for (let b = 1; (await buffer.stats()).transitions < SIZE; b++)
    await buffer.add(await episodes(1000, family.policy(b), b, 'real-offline'));
  const heldOut = await episodes(200, family.heldOutPolicy, 7, 'real-online');
  const queries = heldOut.flatMap((t) =>
    transitions(t).map((tr) => ({ tr, history: t.steps.slice(0, tr.t) as Step[] })),
  );
  const model = await llmFreeModel(family.name, buffer);
  const filter = {
    env: family.name,
    provenance: ['real-offline' as const, 'real-online' as const],
  };
  let asked = 0;
  const step = await measure(
    async () => {
      const { tr, history } = queries[asked++ % queries.length] as (typeof queries)[number];
      const demonstrations = await buffer.retrieve(tr, 4, filter);
      await model.predict({
        task: tr.task,
        history,
        state: tr.state,
        action: tr.action,
        demonstrations,
      });
    },
    { warmup: 10, iterations: Math.min(queries.length - 10, 1000) },
  );
  const stats = await buffer.stats();
  console.log(
    `${family.name}: ${stats.transitions} transitions (${stats.retrieval} retrieval): synthetic step p50 ${step.median.toFixed(3)} ms, p90 ${step.p90.toFixed(3)} ms`,
  );
  await buffer.close();
  return { bufferTransitions: stats.transitions, retrieval: stats.retrieval, stepMs: step };
}

export default async function syntheticBench() {
  const catalog = { seed: 0, size: 1000 };
  const webshop = await stepOverhead({
    name: 'webshop',
    env: makeWebShop({ catalog }),
    tasks: webshopTasks(catalog, getCatalog(catalog), 'train', 40_000),
    policy: (b) => (b % 3 === 0 ? new RandomPolicy() : new WebShopExpert({ epsilon: 0.5 })),
    heldOutPolicy: new WebShopExpert({ epsilon: 0.3 }),
  });
  const household = await stepOverhead({
    name: 'household',
    env: makeHousehold(),
    tasks: householdTasks('train', 10_000),
    policy: () => new HouseholdExpert({ epsilon: 0.3 }),
    heldOutPolicy: new HouseholdExpert({ epsilon: 0.3 }),
  });
  return { webshop, household };
}
