/**
 * Synthetic step overhead of the LLM-free experience model with a 100k-transition replay buffer:
 * one SyntheticEnv step = retrieval of 4 demonstrations + the model's prediction. Target (issue
 * #6): p50 < 1 ms. Queries are steps of held-out real episodes (never seen by the buffer), so
 * nothing is answered from the retrieval memo. BENCH_SYNTH_SIZE narrows the buffer.
 */
import { type Step, transitions } from '../src/core/types.ts';
import { collect } from '../src/data/collect.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { llmFreeModel } from '../src/experience/llm-free.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import { ReplayBuffer } from '../src/replay/replay-buffer.ts';
import { measure } from './measure.ts';

export default async function syntheticBench() {
  const size = Number(process.env.BENCH_SYNTH_SIZE ?? 100_000);
  const catalog = { seed: 0, size: 1000 };
  const tasks = webshopTasks(catalog, getCatalog(catalog), 'train', 40_000);
  const env = makeWebShop({ catalog });
  const buffer = ReplayBuffer.open({ memoSize: 0 });
  let next = 0;
  while (buffer.stats().transitions < size) {
    const batch = tasks.slice(next, next + 1000);
    next += 1000;
    const policy = next % 3000 === 0 ? new RandomPolicy() : new WebShopExpert({ epsilon: 0.5 });
    await buffer.add(
      await collect({
        env,
        policy,
        tasks: batch,
        episodes: batch.length,
        seed: next,
        provenance: 'real-offline',
      }),
    );
  }
  const heldOut = await collect({
    env,
    policy: new WebShopExpert({ epsilon: 0.3 }),
    tasks: tasks.slice(next, next + 200),
    episodes: 200,
    seed: 7,
    provenance: 'real-online',
  });
  const queries = heldOut.flatMap((t) =>
    transitions(t).map((tr) => ({ tr, history: t.steps.slice(0, tr.t) as Step[] })),
  );
  const model = llmFreeModel('webshop', buffer);
  const filter = { env: 'webshop', provenance: ['real-offline', 'real-online'] as const };
  let asked = 0;
  const step = await measure(
    async () => {
      // Each call asks a different held-out step, so no answer comes from the retrieval memo.
      const { tr, history } = queries[asked++ % queries.length] as (typeof queries)[number];
      const demonstrations = await buffer.retrieve(tr, 4, {
        ...filter,
        provenance: [...filter.provenance],
      });
      await model.predict({
        task: tr.task,
        history,
        state: tr.state,
        action: tr.action,
        demonstrations,
      });
    },
    { warmup: 10, iterations: Math.min(queries.length - 10, 600) },
  );
  const stats = buffer.stats();
  console.log(
    `${stats.transitions} transitions (${stats.retrieval} retrieval): synthetic step p50 ${step.median.toFixed(3)} ms, p90 ${step.p90.toFixed(3)} ms`,
  );
  await buffer.close();
  return { bufferTransitions: stats.transitions, retrieval: stats.retrieval, stepMs: step };
}
