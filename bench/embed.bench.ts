/**
 * Hashing embedder speed on webshop page texts of about 500 characters (the states the replay
 * buffer embeds), at 256 and 384 dimensions: texts per second, and latency per text.
 */
import { transitions } from '../src/core/types.ts';
import { HashingEmbedder } from '../src/embed/hashing-embedder.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { runEpisode } from '../src/rl/episode.ts';
import { measure, timeOnce } from './measure.ts';

const TARGET_CHARS = 500;

/** Real webshop pages, prefixed with the instruction and cut at a word near 500 characters. */
async function pageTexts(count: number): Promise<string[]> {
  const env = makeWebShop({ split: 'test' });
  const expert = new WebShopExpert({ epsilon: 0.3 });
  const texts: string[] = [];
  for (let seed = 0; texts.length < count; seed++) {
    const trajectory = await runEpisode(env, expert, { seed, provenance: 'real-online' });
    for (const t of transitions(trajectory)) {
      const full = `${t.nextState.instruction}\n${t.nextState.text}`;
      if (full.length < TARGET_CHARS) continue;
      texts.push(full.slice(0, full.lastIndexOf(' ', TARGET_CHARS)));
    }
  }
  await env.close();
  return texts.slice(0, count);
}

export default async function embedBench() {
  const texts = await pageTexts(2_000);
  const meanChars = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  const results: Record<string, unknown> = { texts: texts.length, meanChars };
  for (const dimensions of [256, 384]) {
    const embedder = new HashingEmbedder({ dimensions });
    const perText = await measure((i) => embedder.embedOne(texts[i % texts.length] as string), {
      iterations: 4_000,
    });
    const batchMs = await timeOnce(() => embedder.embed(texts));
    const textsPerSecond = (texts.length / batchMs) * 1000;
    results[`d${dimensions}`] = {
      perTextMs: perText,
      batchOf: texts.length,
      batchMs,
      textsPerSecond,
    };
    console.log(
      `hashing d=${dimensions}: ${textsPerSecond.toFixed(0)} texts/s (${meanChars.toFixed(0)} chars), ` +
        `p50 ${(perText.median * 1000).toFixed(1)} µs, p90 ${(perText.p90 * 1000).toFixed(1)} µs per text`,
    );
  }
  return results;
}
