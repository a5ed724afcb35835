/**
 * `dreamgym view` over a large replay buffer, through HTTP on loopback: how long the viewer takes
 * to open the buffer (read every episode's header) and to answer a page of the episode list —
 * unfiltered, filtered to synthetic failures sorted by reward, searched by task text, the last
 * page — and one episode and one side-by-side page. Target (issue #23): under 1 s per page with
 * a 100k-transition buffer. BENCH_VIEW_TRANSITIONS sets the sizes, comma-separated (default
 * 100000; 100000,700000 adds a buffer of about 100k episodes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Trajectory } from '../src/core/types.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import { collect } from '../src/rl/collect.ts';
import { listenViewer } from '../src/view/listen-viewer.ts';
import { viewTarget } from '../src/view/view-target.ts';
import { createViewer } from '../src/view/viewer.ts';
import { measure, timeOnce } from './measure.ts';

const SIZES = (process.env.BENCH_VIEW_TRANSITIONS ?? '100000').split(',').map(Number);

export default async function viewBench() {
  const results: Record<string, Awaited<ReturnType<typeof viewerOver>>> = {};
  for (const size of SIZES) results[`${size}`] = await viewerOver(size);
  return results;
}

/** Builds a buffer of at least `size` transitions and times the viewer over it. */
async function viewerOver(size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'dg-view-bench-'));
  const path = join(dir, 'buffer.db');
  const catalog = { seed: 0, size: 1000 };
  const env = makeWebShop({ catalog });
  const tasks = webshopTasks(catalog, getCatalog(catalog), 'train', 2_000);
  // The viewer never retrieves: no ANN index to build.
  const buffer = SqliteReplayBuffer.open({ path, annThreshold: Number.MAX_SAFE_INTEGER });
  // Real and "synthetic" batches overlap in tasks, so compare pages have pairs.
  for (let batch = 0; (await buffer.stats()).transitions < size; batch++) {
    const episodes: Trajectory[] = await collect({
      env,
      policy: batch % 3 === 2 ? new RandomPolicy() : new WebShopExpert({ epsilon: 0.4 }),
      tasks: tasks.slice((batch * 300) % 1500, ((batch * 300) % 1500) + 500),
      episodes: 500,
      seed: batch,
      provenance: batch % 2 === 0 ? 'real-offline' : 'synthetic',
    });
    await buffer.add(episodes.map((t) => ({ ...t, id: `${batch}-${t.id}` })));
  }
  const stats = await buffer.stats();
  await buffer.close();
  console.log(`buffer: ${stats.trajectories} episodes, ${stats.transitions} transitions`);

  let served: Awaited<ReturnType<typeof listenViewer>> | undefined;
  const openMs = await timeOnce(async () => {
    const viewer = await createViewer({ target: viewTarget(path) });
    served = await listenViewer(viewer, { port: 0 });
  });
  const url = (served as NonNullable<typeof served>).url;
  const get = async (path: string) => {
    const answer = await fetch(`${url}${path}`);
    if (!answer.ok) throw new Error(`${path}: HTTP ${answer.status}`);
    return answer.text();
  };
  const firstPageMs = await timeOnce(() => get('/episodes'));
  const pages = Math.ceil(stats.trajectories / 50);
  const list = await get('/episodes?provenance=synthetic&outcome=failure&sort=reward');
  const episodeId = /data-id="([^"]+)"/.exec(list)?.[1] as string;
  const paired = await get('/episodes?paired=1');
  const compareHref = /href="(\/compare\?[^"]+)"/
    .exec(paired)?.[1]
    ?.replace(/&amp;/g, '&') as string;
  const options = { warmup: 3, iterations: 30 };
  const results = {
    bufferEpisodes: stats.trajectories,
    bufferTransitions: stats.transitions,
    openMs,
    firstPageMs,
    pageMs: {
      unfiltered: await measure((i) => get(`/episodes?page=${1 + ((i * 37) % pages)}`), options),
      syntheticFailuresByReward: await measure(
        (i) =>
          get(`/episodes?provenance=synthetic&outcome=failure&sort=reward&page=${1 + (i % 20)}`),
        options,
      ),
      taskText: await measure(
        (i) => get(`/episodes?task=${['mug', 'shoes', 'dollars', 'pack'][i % 4]}`),
        options,
      ),
      lastPage: await measure(() => get(`/episodes?page=${pages}`), options),
      episode: await measure(() => get(`/episodes/${encodeURIComponent(episodeId)}`), options),
      compare: await measure(() => get(compareHref), options),
    },
  };
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
  const p = results.pageMs;
  console.log(
    `open ${openMs.toFixed(0)} ms, first page ${firstPageMs.toFixed(0)} ms; p50/p99 ms: list ${p.unfiltered.median.toFixed(0)}/${p.unfiltered.p99.toFixed(0)}, synthetic failures by reward ${p.syntheticFailuresByReward.median.toFixed(0)}/${p.syntheticFailuresByReward.p99.toFixed(0)}, task text ${p.taskText.median.toFixed(0)}/${p.taskText.p99.toFixed(0)}, last page ${p.lastPage.median.toFixed(0)}, episode ${p.episode.median.toFixed(0)}, compare ${p.compare.median.toFixed(0)}`,
  );
  return results;
}
