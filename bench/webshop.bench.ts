/**
 * webshop env speed at 1k, 10k and 100k products: catalog generation, index build, search
 * latency, click-step latency, and whole-episode throughput (reset + expert steps).
 * Targets (issue #2): search p50 < 2 ms at 10k products; click steps p50 < 0.5 ms.
 */
import { Rng } from '../src/core/rng.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopSpec, webshopTasks } from '../src/envs/webshop/goals.ts';
import { catalogSearch } from '../src/envs/webshop/search.ts';
import { makeWebShop, WebShopEnv } from '../src/envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { runEpisode } from '../src/rl/episode.ts';
import { measure, timeOnce } from './measure.ts';

export default async function webshopBench() {
  const results: Record<string, unknown> = {};
  for (const size of [1_000, 10_000, 100_000]) {
    const id = { seed: 0, size };
    let products = getCatalog(id);
    const generateMs = await timeOnce(() => {
      products = getCatalog({ seed: 1, size });
    });
    products = getCatalog(id);
    let buildMs = 0;
    buildMs = await timeOnce(() => catalogSearch(products));
    const index = catalogSearch(products);
    const tasks = webshopTasks(id, products, 'test', 200);
    const queries = tasks.map((t) => {
      const { goal } = webshopSpec(t);
      return [...goal.attributes, goal.productType].join(' ');
    });
    const search = await measure((i) => index.search(queries[i % queries.length] as string), {
      iterations: 1000,
    });

    const env = new WebShopEnv({ catalog: id, split: 'test' });
    await env.reset({ task: tasks[0] });
    const resultsPage = await env.step(`search[${queries[0]}]`);
    const firstAsin = resultsPage.observation.actions?.find((a) => /^click\[B0/i.test(a)) as string;
    // Alternate between opening an item and going back: every timed call is one click step.
    const click = await measure((i) => env.step(i % 2 === 0 ? firstAsin : 'click[< Prev]'), {
      iterations: 2000,
    });

    const expert = new WebShopExpert({ epsilon: 0.3 });
    const shop = makeWebShop({ catalog: id, split: 'test' });
    const rng = new Rng(3);
    // Warm-up: the first purchase loads the POS-tagging model used by the reward.
    await runEpisode(shop, expert, { task: rng.pick(tasks), seed: 0, provenance: 'real-online' });
    let steps = 0;
    const episodes = 500;
    const episodeMs = await timeOnce(async () => {
      for (let i = 0; i < episodes; i++) {
        const t = await runEpisode(shop, expert, {
          task: rng.pick(tasks),
          seed: i,
          provenance: 'real-online',
        });
        steps += t.steps.length;
      }
    });
    results[`${size}`] = {
      catalogGenerationMs: generateMs,
      indexBuildMs: buildMs,
      searchMs: search,
      clickStepMs: click,
      expertEpisodes: {
        episodes,
        steps,
        episodesPerSecond: (episodes / episodeMs) * 1000,
        stepsPerSecond: (steps / episodeMs) * 1000,
      },
    };
    console.log(
      `${size} products: generate ${generateMs.toFixed(0)} ms, index ${buildMs.toFixed(0)} ms, ` +
        `search p50 ${search.median.toFixed(3)} ms p90 ${search.p90.toFixed(3)} ms, ` +
        `click p50 ${click.median.toFixed(4)} ms, ${((steps / episodeMs) * 1000).toFixed(0)} steps/s`,
    );
  }
  return results;
}
