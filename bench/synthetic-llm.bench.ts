/**
 * Synthetic step overhead of the LLM experience model, the LLM's latency excluded: a
 * `SyntheticEnv.step` with `LlmExperienceModel` over an instant `MockLlm` (which still serialises
 * and schema-checks every answer, as a real client does) at a 100k-transition buffer (ANN
 * retrieval, k = 4). Target (issue #6): p50 < 1 ms. BENCH_SYNTH_SIZE=20000 shrinks the buffer.
 * Data: real webshop episodes (noisy expert and random policy) over a 10k-product catalog. The
 * timed steps replay held-out real episodes with the mock answering the real next state, so the
 * prompts carry real pages, histories and demonstrations. Reported: steps whose retrieval is new
 * (`freshStepMs`), the same steps again (`repeatStepMs`: a GRPO group's rollouts, served by the
 * buffer's retrieval memo), retrieval alone on unseen questions (`retrieveMs`) and the prompt's
 * construction alone (`promptBuildMs`).
 */
import { type Step, type Trajectory, transitions } from '../src/core/types.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { toAnswer } from '../src/experience/llm/answer.ts';
import { LlmExperienceModel } from '../src/experience/llm/llm-model.ts';
import { predictionMessages, resolvePromptOptions } from '../src/experience/llm/prompt.ts';
import { SyntheticEnv } from '../src/experience/synthetic-env.ts';
import { MockLlm } from '../src/llm/mock-llm.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import type { RetrieveFilter } from '../src/replay/filter-index.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { collect } from '../src/rl/collect.ts';
import { measure, timeOnce } from './measure.ts';

const SIZE = Number(process.env.BENCH_SYNTH_SIZE ?? 100_000);
const K = 4;
/** The demonstrations SyntheticEnv retrieves by default. */
const REAL_WEBSHOP: RetrieveFilter = {
  env: 'webshop',
  provenance: ['real-offline', 'real-online'],
};
const catalog = { seed: 0, size: 10_000 };
const products = getCatalog(catalog);
const shop = makeWebShop({ catalog });

/** `count` real episodes on train tasks from `first` on: two thirds noisy expert, one third random. */
async function episodes(first: number, count: number, seed: number): Promise<Trajectory[]> {
  const tasks = webshopTasks(catalog, products, 'train', first + count).slice(first);
  const expertTasks = tasks.splice(0, Math.round((count * 2) / 3));
  const run = (policy: WebShopExpert | RandomPolicy, part: typeof tasks) =>
    collect({
      env: shop,
      policy,
      tasks: part,
      episodes: part.length,
      seed,
      provenance: 'real-offline',
    });
  return [
    ...(await run(new WebShopExpert({ epsilon: 0.5 }), expertTasks)),
    ...(await run(new RandomPolicy(), tasks)),
  ];
}

/** One synthetic step to time: the env (reset to the episode's task) and the real step. */
interface PlannedStep {
  env: SyntheticEnv;
  step: Step;
}

export default async function syntheticLlmBench() {
  const buffer = SqliteReplayBuffer.open();
  let stored = 0;
  let nextTask = 0;
  const fillMs = await timeOnce(async () => {
    while (stored < SIZE) {
      const batch = await episodes(nextTask, 2000, nextTask);
      nextTask += 2000;
      await buffer.add(batch);
      stored += batch.reduce((sum, t) => sum + t.steps.length, 0);
    }
  });
  const heldOut = (await episodes(nextTask, 300, 999)).filter((t) => t.steps.length > 0);
  const [warm, timed, unseen] = [heldOut.slice(0, 50), heldOut.slice(50, 250), heldOut.slice(250)];
  const retrieval = (await buffer.stats()).retrieval;
  console.log(
    `buffer: ${stored} transitions (${retrieval} retrieval) in ${(fillMs / 1000).toFixed(0)} s`,
  );

  // The mock answers each step with the real next state of the step being replayed.
  let answer: ReturnType<typeof toAnswer> | undefined;
  const llm = new MockLlm({ answers: () => answer ?? new Error('no answer planned') });
  const model = new LlmExperienceModel({ llm });
  const plan = async (trajectories: Trajectory[]): Promise<PlannedStep[]> => {
    const steps: PlannedStep[] = [];
    for (const trajectory of trajectories) {
      const env = new SyntheticEnv({ env: 'webshop', model, buffer, k: K });
      await env.reset({ task: trajectory.task });
      for (const step of trajectory.steps) steps.push({ env, step });
    }
    return steps;
  };
  const run = async (steps: PlannedStep[]) =>
    measure(
      async (i) => {
        const { env, step } = steps[i] as PlannedStep;
        answer = toAnswer('replayed', step.observation, step.reward, step.terminated);
        const result = await env.step(step.action);
        if (result.truncated) throw new Error(`step ${i} truncated: ${String(result.info.error)}`);
      },
      { warmup: 0, iterations: steps.length },
    );

  await run(await plan(warm));
  const fresh = await run(await plan(timed));
  const requests = llm.requests.length;
  const repeat = await run(await plan(timed));
  const promptChars =
    llm.requests
      .slice(requests)
      .reduce((sum, r) => sum + r.messages.reduce((s, m) => s + m.content.length, 0), 0) /
    (llm.requests.length - requests);

  // Retrieval alone, on questions the memo has not seen: the share of a fresh step that is not the model's.
  const keys = unseen.flatMap(transitions);
  const retrieve = await measure(
    (i) => {
      const t = keys[i] as (typeof keys)[number];
      return buffer.retrieve({ state: t.state, action: t.action, task: t.task }, K, REAL_WEBSHOP);
    },
    { warmup: 0, iterations: keys.length },
  );

  const prompt = resolvePromptOptions();
  const asked = await Promise.all(
    timed.flatMap(transitions).map(async (t) => ({
      task: t.task,
      history: [],
      state: t.state,
      action: t.action,
      demonstrations: await buffer.retrieve(
        { state: t.state, action: t.action, task: t.task },
        K,
        REAL_WEBSHOP,
      ),
    })),
  );
  const build = await measure((i) => predictionMessages(asked[i % asked.length] as never, prompt), {
    iterations: 2000,
  });
  await buffer.close();

  console.log(
    `fresh step p50 ${fresh.median.toFixed(3)} ms p90 ${fresh.p90.toFixed(3)} ms · retrieval alone p50 ${retrieve.median.toFixed(3)} ms · repeated step p50 ${repeat.median.toFixed(3)} ms · prompt build p50 ${build.median.toFixed(3)} ms · prompt ${Math.round(promptChars)} chars`,
  );
  return {
    transitions: stored,
    retrieval,
    k: K,
    fillSeconds: fillMs / 1000,
    freshStepMs: fresh,
    repeatStepMs: repeat,
    retrieveMs: retrieve,
    promptBuildMs: build,
    meanPromptChars: promptChars,
  };
}
