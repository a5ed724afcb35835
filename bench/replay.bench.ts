/**
 * Replay buffer at 10k, 100k and 1M transitions (hashing embedder, 3 × 128 = 384 dimensions):
 * insert throughput, retrieval latency (exact sqlite-vec and ANN usearch) and the ANN's recall@8
 * against exact search (default ef 64, and ef 32 and 128 for comparison). Targets (issue #5):
 * p50 < 5 ms at 1M with recall@8 ≥ 0.95; insert ≥ 20k transitions/s. Insert throughput is that
 * of `add` into the store with exact search (below the ANN threshold); building the ANN index over
 * the same transitions is reported separately (`annBuildMs`). Sizes can be narrowed: BENCH_REPLAY_SIZES=10000,100000.
 * At 100k also (issue 20): sustained adds into an ANN-backed buffer — adds of 20 episodes, as
 * served envs write back, each retrievable when it resolves — with the default index settings
 * and with f16 vectors inserted on 2 threads (`sustained`); and the PostgreSQL backend on a
 * test server started here (Debian's PostgreSQL, fsync off as in the tests): insert/s with its
 * in-process index kept up to date, retrieve p50/p99, recall@8 against exact search, and the
 * time a new process takes to open the buffer (`postgres`). BENCH_REPLAY_PG=0 leaves it out.
 * Data: real webshop episodes (noisy expert and random policy) over a 10k-product catalog;
 * queries are transitions of held-out episodes.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Trajectory, transitions } from '../src/core/types.ts';
import { getCatalog } from '../src/envs/webshop/catalog.ts';
import { webshopTasks } from '../src/envs/webshop/goals.ts';
import { makeWebShop } from '../src/envs/webshop/webshop-env.ts';
import { WebShopExpert } from '../src/policy/experts/webshop-expert.ts';
import { RandomPolicy } from '../src/policy/random-policy.ts';
import type { AnnOptions } from '../src/replay/ann-index.ts';
import { PostgresReplayBuffer } from '../src/replay/postgres-buffer.ts';
import type { ReplayBuffer } from '../src/replay/replay-buffer.ts';
import { SqliteReplayBuffer } from '../src/replay/sqlite-buffer.ts';
import type { RetrievedTransition } from '../src/replay/stored-transition.ts';
import { startTestPostgres } from '../src/replay/testing/postgres-server.ts';
import { collect } from '../src/rl/collect.ts';
import { measure } from './measure.ts';

const SIZES = (process.env.BENCH_REPLAY_SIZES ?? '10000,100000,1000000').split(',').map(Number);
/** The HNSW build's candidate list (efConstruction); BENCH_REPLAY_EF_ADD tries another. */
const EXPANSION_ADD = Number(process.env.BENCH_REPLAY_EF_ADD ?? 128);
const catalog = { seed: 0, size: 10_000 };
const products = getCatalog(catalog);
const env = makeWebShop({ catalog });
const expert = new WebShopExpert({ epsilon: 0.5 });
const random = new RandomPolicy();
let nextTask = 0;

/** Fresh real episodes: two thirds noisy expert, one third random, each on a new train task. */
async function episodes(count: number, seed: number): Promise<Trajectory[]> {
  const tasks = webshopTasks(catalog, products, 'train', nextTask + count).slice(nextTask);
  nextTask += count;
  const out: Trajectory[] = [];
  for (const [policy, share] of [
    [expert, 2 / 3],
    [random, 1 / 3],
  ] as const) {
    const part = tasks.splice(0, Math.round(count * share));
    if (part.length === 0) continue;
    out.push(
      ...(await collect({
        env,
        policy,
        tasks: part,
        episodes: part.length,
        seed,
        provenance: 'real-offline',
      })),
    );
  }
  return out;
}

/** Share of `approx` results at least as close as exact search's k-th result (robust to ties). */
function recallAtK(approx: RetrievedTransition[], exact: RetrievedTransition[]): number {
  const kth = exact.at(-1)?.similarity ?? 1;
  return approx.filter((r) => r.similarity >= kth - 1e-6).length / Math.max(1, exact.length);
}

export default async function replayBench() {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-bench-buffer-'));
  const results: Record<string, unknown> = {};
  const queries = (await episodes(300, 999)).flatMap(transitions).slice(0, 200);
  const openExact = () =>
    SqliteReplayBuffer.open({
      path: join(dir, 'buffer.db'),
      annThreshold: Number.POSITIVE_INFINITY,
      memoSize: 0,
    });
  let exactBuffer = openExact();
  let insertMs = 0;
  let inserted = 0;
  for (const size of SIZES) {
    while (inserted < size) {
      const batch = await episodes(2000, inserted);
      const start = performance.now();
      await exactBuffer.add(batch);
      insertMs += performance.now() - start;
      inserted += batch.reduce((s, t) => s + t.steps.length, 0);
    }
    const exact = await measure(
      (i) => exactBuffer.retrieve(queries[i % queries.length] as never, 8),
      {
        warmup: 3,
        iterations: size >= 1_000_000 ? 50 : 200,
      },
    );
    const row: Record<string, unknown> = {
      transitions: inserted,
      insertTransitionsPerSecond: (inserted / insertMs) * 1000,
      exactRetrieveMs: exact,
    };
    console.log(
      `${inserted} transitions: insert ${row.insertTransitionsPerSecond as number | 0}/s, exact p50 ${exact.median.toFixed(2)} ms`,
    );
    if (size > 50_000) {
      // Build the ANN index over the same database file, as a reopened buffer would.
      await exactBuffer.close();
      const buildStart = performance.now();
      const annBuffer = SqliteReplayBuffer.open({
        path: join(dir, 'buffer.db'),
        annThreshold: 50_000,
        memoSize: 0,
        ann: { expansionAdd: EXPANSION_ADD },
      });
      const buildMs = performance.now() - buildStart;
      const reference = openExact();
      const truth: RetrievedTransition[][] = [];
      for (const q of queries) truth.push(await reference.retrieve(q, 8));
      await reference.close();
      const recallOf = async (buffer: ReplayBuffer) => {
        let recall = 0;
        for (const [i, q] of queries.entries())
          recall += recallAtK(await buffer.retrieve(q, 8), truth[i] as RetrievedTransition[]);
        return recall / queries.length;
      };
      const latencyOf = (buffer: ReplayBuffer) =>
        measure((i) => buffer.retrieve(queries[i % queries.length] as never, 8), {
          warmup: 10,
          iterations: 1000,
        });
      const recall = await recallOf(annBuffer);
      const ann = await latencyOf(annBuffer);
      row.annBuildMs = buildMs;
      row.annRetrieveMs = ann;
      row.annRecallAt8 = recall;
      console.log(
        `  ANN: build ${(buildMs / 1000).toFixed(1)} s, p50 ${ann.median.toFixed(3)} ms, p99 ${ann.p99.toFixed(3)} ms, recall@8 ${recall.toFixed(3)}`,
      );
      await annBuffer.close();
      // The search-time candidate list (ef) trades recall for speed: the default is 64.
      const sweep: Record<string, unknown> = {};
      for (const expansionSearch of [32, 128]) {
        const tuned = SqliteReplayBuffer.open({
          path: join(dir, 'buffer.db'),
          annThreshold: 50_000,
          memoSize: 0,
          ann: { expansionSearch, expansionAdd: EXPANSION_ADD },
        });
        const tunedRecall = await recallOf(tuned);
        const tunedMs = await latencyOf(tuned);
        sweep[`ef${expansionSearch}`] = { recallAt8: tunedRecall, retrieveMs: tunedMs };
        console.log(
          `  ANN ef ${expansionSearch}: p50 ${tunedMs.median.toFixed(3)} ms, recall@8 ${tunedRecall.toFixed(3)}`,
        );
        await tuned.close();
      }
      row.annExpansionSearch = sweep;
      if (size === 100_000) {
        const fresh = await episodes(2000, 7);
        row.sustained = {
          default: await sustainedAdds(dir, {}, fresh, recallOf),
          f16Threads2: await sustainedAdds(
            dir,
            { quantization: 'f16', threads: 2, expansionAdd: 64 },
            fresh,
            recallOf,
          ),
        };
        if (process.env.BENCH_REPLAY_PG !== '0') {
          row.postgres = await postgresAt(join(dir, 'buffer.db'), recallOf, latencyOf);
        }
      }
      rmSync(join(dir, 'buffer.db.real.usearch'), { force: true });
      exactBuffer = openExact();
    }
    results[String(size)] = row;
  }
  await exactBuffer.close();
  rmSync(dir, { recursive: true, force: true });
  return results;
}

/**
 * Adds `fresh` 20 episodes at a time into a copy of the buffer at `dir` (its ANN index built at
 * open with `ann`, whose recall@8 is measured first), each add's transitions indexed before it
 * resolves: transitions/s end to end.
 */
async function sustainedAdds(
  dir: string,
  ann: AnnOptions,
  fresh: readonly Trajectory[],
  recallOf: (buffer: ReplayBuffer) => Promise<number>,
) {
  const path = join(dir, 'sustained.db');
  copyFileSync(join(dir, 'buffer.db'), path);
  const saved = join(dir, 'buffer.db.real.usearch');
  if (existsSync(saved)) copyFileSync(saved, `${path}.real.usearch`);
  const openStart = performance.now();
  const buffer = SqliteReplayBuffer.open({ path, annThreshold: 50_000, memoSize: 0, ann });
  const openMs = performance.now() - openStart;
  const recallAt8 = await recallOf(buffer);
  const added = fresh.reduce((s, t) => s + t.steps.length, 0);
  const start = performance.now();
  for (let i = 0; i < fresh.length; i += 20) await buffer.add(fresh.slice(i, i + 20));
  const ms = performance.now() - start;
  const indexed = (await buffer.stats()).annIndexed.real;
  await buffer.close();
  for (const suffix of ['', '-wal', '-shm', '.real.usearch'])
    rmSync(`${path}${suffix}`, { force: true });
  const out = {
    ann,
    openMs,
    recallAt8,
    transitions: added,
    transitionsPerSecond: (added / ms) * 1000,
    indexed,
  };
  console.log(
    `  sustained adds ${JSON.stringify(ann)}: ${out.transitionsPerSecond | 0} transitions/s (open ${(openMs / 1000).toFixed(1)} s, recall@8 ${recallAt8.toFixed(3)})`,
  );
  return out;
}

/**
 * The PostgreSQL backend at the size of the SQLite buffer at `source`: its trajectories added
 * 2,000 at a time, then retrieval as for SQLite, then a second process's open (its index built
 * from the table).
 */
async function postgresAt(
  source: string,
  recallOf: (buffer: ReplayBuffer) => Promise<number>,
  latencyOf: (buffer: ReplayBuffer) => ReturnType<typeof measure>,
) {
  const server = await startTestPostgres();
  try {
    const url = await server.newDatabase();
    const buffer = await PostgresReplayBuffer.open({ url });
    const sqlite = SqliteReplayBuffer.open({
      path: source,
      annThreshold: Number.POSITIVE_INFINITY,
    });
    let insertMs = 0;
    let inserted = 0;
    let batch: Trajectory[] = [];
    const flush = async () => {
      const start = performance.now();
      await buffer.add(batch);
      insertMs += performance.now() - start;
      inserted += batch.reduce((s, t) => s + t.steps.length, 0);
      batch = [];
    };
    for await (const t of sqlite.trajectories()) {
      batch.push(t);
      if (batch.length >= 2000) await flush();
    }
    await flush();
    await sqlite.close();
    const recall = await recallOf(buffer);
    const retrieveMs = await latencyOf(buffer);
    await buffer.close();
    const openStart = performance.now();
    const second = await PostgresReplayBuffer.open({ url });
    const secondOpenMs = performance.now() - openStart;
    await second.close();
    const out = {
      transitions: inserted,
      insertTransitionsPerSecond: (inserted / insertMs) * 1000,
      retrieveMs,
      recallAt8: recall,
      secondProcessOpenMs: secondOpenMs,
    };
    console.log(
      `  PostgreSQL: insert ${out.insertTransitionsPerSecond | 0}/s, p50 ${retrieveMs.median.toFixed(3)} ms, p99 ${retrieveMs.p99.toFixed(3)} ms, recall@8 ${recall.toFixed(3)}, open ${(secondOpenMs / 1000).toFixed(1)} s`,
    );
    return out;
  } finally {
    server.stop();
  }
}
