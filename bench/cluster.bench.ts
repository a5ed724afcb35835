/**
 * `npm run bench -- cluster`: `dreamgym serve --env synthetic:webshop` (LLM-free) as instances of
 * one topology — the buffer and the curriculum's task pool in one PostgreSQL, Debian's HAProxy
 * with `deploy/haproxy.cfg` in front — driven by clients of AgentGym's protocol that take their
 * tasks from the curriculum (task-less resets, groups of 8), each client on a connection of its
 * own. Runs, on the same three instances (`--instance I/3`):
 * - `direct, task index`: one instance, no balancer, resets by task index (no task pool work);
 * - `direct, curriculum`: the same instance, resets from the shared task pool (PostgreSQL);
 * - `haproxy, N instances` for N = 1, 2, 3: through the balancer, curriculum resets;
 * - one request at a time, nothing queued: `GET /healthz` direct and through HAProxy (what the
 *   balancer adds to a round trip), and the pool's two calls per episode (a hand-out, a reward).
 * For each: steps/s, step and reset p50/p90/p99, and the CPU each part spent per step (the
 * instances, HAProxy, PostgreSQL's backends), read from /proc.
 *
 * On a 2-core machine (this one) 2 or 3 instances cannot go faster than 1: the instances, HAProxy,
 * PostgreSQL and the clients share the two cores. What predicts scaling on a bigger machine is the
 * CPU per step of each part: N instances on N cores give up to N times one instance's steps/s until
 * HAProxy's core (1 / its CPU per step) or PostgreSQL's cores are used up.
 * BENCH_CLUSTER_STEPS (default 3000 a run) and BENCH_CLUSTER_CLIENTS (default 24) scale it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PostgresTaskPool } from '../src/curriculum/postgres-task-pool.ts';
import { PostgresReplayBuffer } from '../src/replay/postgres-buffer.ts';
import { webshopTrajectories } from '../src/replay/testing/fixtures.ts';
import { startTestPostgres } from '../src/replay/testing/postgres-server.ts';
import { TransitionEncoder } from '../src/replay/transition-encoder.ts';
import { type Measurement, measure } from './measure.ts';
import { postJson } from './post-json.ts';

const STEPS = Number(process.env.BENCH_CLUSTER_STEPS ?? 3000);
const CLIENTS = Number(process.env.BENCH_CLUSTER_CLIENTS ?? 24);
const INSTANCES = 3;
const root = join(import.meta.dirname, '..');
/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux). */
const TICKS = 100;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds a process has used (user + system), from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

async function startInstance(
  index: number,
  database: string,
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(root, 'scripts/dreamgym-dev.js'),
      'serve',
      ...['--env', 'synthetic:webshop', '--db', database, '--tasks', database],
      ...['--curriculum', 'variance', '--group-size', '8', '--batch-tasks', '16'],
      ...['--instance', `${index}/${INSTANCES}`, '--port', String(port), '--max-sessions', '256'],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  for (let waited = 0; !/Ctrl-C to stop/.test(out); waited += 100) {
    if (child.exitCode !== null || waited > 120_000) throw new Error(`serve did not start: ${out}`);
    await sleep(100);
  }
  return { port, child };
}

/** HAProxy with `deploy/haproxy.cfg` over the instances on `ports` (the others point nowhere). */
async function startHaproxy(ports: number[]): Promise<{ url: string; child: ChildProcess }> {
  const [bind, stats, nowhere] = [await freePort(), await freePort(), await freePort()];
  const bin = ['haproxy', '/usr/sbin/haproxy'].find((b) => {
    try {
      execFileSync(b, ['-v'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  if (!bin) throw new Error('the cluster bench needs HAProxy: run `npm run setup`.');
  const child = spawn(bin, ['-db', '-f', join(root, 'deploy/haproxy.cfg')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DREAMGYM_LB_BIND: `127.0.0.1:${bind}`,
      DREAMGYM_LB_STATS: `127.0.0.1:${stats}`,
      ...Object.fromEntries(
        Array.from({ length: INSTANCES }, (_, i) => [
          `DREAMGYM_${i}`,
          `127.0.0.1:${ports[i] ?? nowhere}`,
        ]),
      ),
    },
  });
  // Until its checks have found, in both backends, every live instance up and the others down.
  for (let waited = 0; waited < 30_000; waited += 200) {
    await sleep(200);
    const csv = await fetch(`http://127.0.0.1:${stats}/;csv`).then(
      (r) => r.text(),
      () => '',
    );
    const servers = csv
      .split('\n')
      .map((l) => l.split(','))
      .filter((c) => c[1]?.startsWith('dreamgym'));
    const settled = servers.every((c) => {
      const live = Number(c[1]?.slice('dreamgym'.length)) < ports.length;
      return c[17] === (live ? 'UP' : 'DOWN');
    });
    if (servers.length === 2 * INSTANCES && settled) {
      return { url: `http://127.0.0.1:${bind}`, child };
    }
  }
  throw new Error('HAProxy did not see the instances up');
}

/** One scripted episode's next action from the page text (search, open the first item, buy). */
function nextAction(page: string): string {
  const instruction = /Instruction:\s*\n?(.*)/.exec(page)?.[1] ?? 'shoes';
  if (page.includes('[Search]')) return `search[${instruction.split(' ').slice(2, 6).join(' ')}]`;
  if (page.includes('[Buy Now]')) return 'click[buy now]';
  const asin = /\[(B0[A-Z0-9]{8})\]/i.exec(page)?.[1];
  return asin ? `click[${asin.toLowerCase()}]` : 'click[back to search]';
}

function quantiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor(q * (sorted.length - 1))] as number;
  return { median: at(0.5), p90: at(0.9), p99: at(0.99), n: sorted.length };
}

/** PostgreSQL backends serving `database` now (the instances' connections). */
async function backends(database: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const name = new URL(database).pathname.slice(1);
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** `clients` clients play through `url` until `steps` steps are done; what it cost. */
async function run(
  name: string,
  url: string,
  parts: { instances: number[]; haproxy?: number; database: string },
  { byIndex = false, clients = CLIENTS, steps: total = STEPS } = {},
) {
  const agents = Array.from(
    { length: clients },
    () => new Agent({ keepAlive: true, maxSockets: 1 }),
  );
  const ids = await Promise.all(
    agents.map((agent) => postJson<number>(`${url}/create`, {}, agent)),
  );
  // Warm up: a few episodes each, so connections, batches and caches are in place.
  let budget = clients * 8;
  const steps: number[] = [];
  const resets: number[] = [];
  const play = async (c: number) => {
    const agent = agents[c] as Agent;
    for (let episode = 0; budget > 0; episode++) {
      const started = process.hrtime.bigint();
      let [page] = await postJson<[string, null]>(
        `${url}/reset`,
        { env_idx: ids[c], ...(byIndex && { session_id: (c * 97 + episode * 31) % 500 }) },
        agent,
      );
      resets.push(Number(process.hrtime.bigint() - started) / 1e6);
      for (let done = false; !done && budget > 0; ) {
        budget--;
        const start = process.hrtime.bigint();
        const step = await postJson<{ state: string; done: boolean }>(
          `${url}/step`,
          { env_idx: ids[c], action: nextAction(page) },
          agent,
        );
        steps.push(Number(process.hrtime.bigint() - start) / 1e6);
        page = step.state;
        done = step.done;
      }
    }
  };
  await Promise.all(agents.map((_, c) => play(c)));
  steps.length = 0;
  resets.length = 0;
  const pgPids = await backends(parts.database);
  const startCpu = new Map(pgPids.map((pid) => [pid, cpuSeconds(pid)]));
  const cpu = () => ({
    instances: parts.instances.reduce((s, pid) => s + cpuSeconds(pid), 0),
    haproxy: parts.haproxy ? cpuSeconds(parts.haproxy) : 0,
    // Backends that ended meanwhile (a pool let an idle connection go) count what they had.
    postgres: pgPids.reduce((s, pid) => s + (cpuSeconds(pid) || (startCpu.get(pid) ?? 0)), 0),
  });
  const before = cpu();
  budget = total;
  const started = performance.now();
  await Promise.all(agents.map((_, c) => play(c)));
  const seconds = (performance.now() - started) / 1000;
  const after = cpu();
  await Promise.all(
    ids.map((id, c) => postJson(`${url}/close`, { env_idx: id }, agents[c] as Agent)),
  );
  for (const agent of agents) agent.destroy();
  const perStep = (part: keyof typeof before) =>
    (1000 * (after[part] - before[part])) / steps.length;
  const result = {
    name,
    clients,
    instances: parts.instances.length,
    resets: byIndex ? 'task index' : 'curriculum (PostgreSQL pool)',
    steps: steps.length,
    episodes: resets.length,
    seconds,
    stepsPerSecond: steps.length / seconds,
    stepMs: quantiles(steps),
    resetMs: quantiles(resets),
    cpuMsPerStep: {
      instances: perStep('instances'),
      haproxy: perStep('haproxy'),
      postgres: perStep('postgres'),
    },
  };
  console.log(
    `${name}: ${result.stepsPerSecond.toFixed(0)} steps/s, step p50 ${result.stepMs.median.toFixed(2)} ms p99 ${result.stepMs.p99.toFixed(2)} ms, reset p99 ${result.resetMs.p99.toFixed(2)} ms; CPU ms/step: instances ${result.cpuMsPerStep.instances.toFixed(2)}, HAProxy ${result.cpuMsPerStep.haproxy.toFixed(3)}, PostgreSQL ${result.cpuMsPerStep.postgres.toFixed(3)}`,
  );
  return result;
}

type Run = Awaited<ReturnType<typeof run>>;

/** `GET /healthz` one at a time on one kept-alive connection: a request's round trip to `url`. */
async function probe(url: string): Promise<Measurement> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      request(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
  try {
    return await measure(get, { warmup: 50, iterations: 1000 });
  } finally {
    agent.destroy();
  }
}

/** The shared pool's two calls per episode, one at a time, on a pool of its own in `database`. */
async function poolCalls(database: string) {
  const pool = await PostgresTaskPool.open({ url: database });
  try {
    const tasks = Array.from({ length: 16 }, (_, i) => ({
      id: `bench/${i}`,
      env: 'bench',
      instruction: `bench task ${i}`,
      origin: 'seed' as const,
    }));
    await pool.add(tasks);
    // A fresh iteration far past the served ones, with slots enough for the measurement.
    await pool.recordGroups(1_000_000, [{ taskId: 'bench/0', reward: 0 }]);
    while (await pool.handOut());
    await pool.startBatch(1000, async () => tasks);
    const handOut = await measure(() => pool.handOut(), { warmup: 20, iterations: 500 });
    const addToGroup = await measure((i) => pool.addToGroup(1_000_001, `bench/${i % 16}`, i % 2), {
      warmup: 20,
      iterations: 500,
    });
    return { handOut, addToGroup };
  } finally {
    await pool.close();
  }
}

export default async function clusterBench() {
  const postgres = await startTestPostgres();
  const children: ChildProcess[] = [];
  try {
    const database = await postgres.newDatabase();
    console.log('cluster: importing 300 offline webshop episodes into PostgreSQL…');
    const buffer = await PostgresReplayBuffer.open({
      url: database,
      encoder: new TransitionEncoder(),
    });
    await buffer.add(await webshopTrajectories(300));
    await buffer.close();
    const instances: Array<{ port: number; child: ChildProcess }> = [];
    for (let i = 0; i < INSTANCES; i++) {
      const instance = await startInstance(i, database);
      children.push(instance.child);
      instances.push(instance);
    }
    const [first] = instances as [(typeof instances)[number]];
    const pids = (n: number) => instances.slice(0, n).map((i) => i.child.pid as number);
    const direct = `http://127.0.0.1:${first.port}`;
    const one = { instances: pids(1), database };
    // Loaded (CLIENTS clients at once): throughput, and the CPU each part spends per step.
    const runs = [
      await run('direct, task index', direct, one, { byIndex: true }),
      await run('direct, curriculum', direct, one),
    ];
    let hop: { direct: Measurement; balanced: Measurement } | undefined;
    for (let n = 1; n <= INSTANCES; n++) {
      const lb = await startHaproxy(instances.slice(0, n).map((i) => i.port));
      const parts = { instances: pids(n), haproxy: lb.child.pid as number, database };
      try {
        // Alone, one request at a time: what the balancer adds to a request's round trip.
        if (n === 1) hop = { direct: await probe(direct), balanced: await probe(lb.url) };
        runs.push(await run(`haproxy, ${n} instance${n > 1 ? 's' : ''}`, lb.url, parts));
      } finally {
        lb.child.kill('SIGTERM');
        await once(lb.child, 'exit');
      }
    }
    const pool = await poolCalls(database);
    const [byIndex, curriculum, balanced] = runs as [Run, Run, Run];
    const { direct: alone, balanced: through } = hop as {
      direct: Measurement;
      balanced: Measurement;
    };
    const overhead = {
      /** What the balancer adds to a request's round trip (median, one request at a time). */
      balancerLatencyMs: through.median - alone.median,
      /** HAProxy's CPU per request; one HAProxy thread serves at most 1000 / this a second. */
      balancerCpuMsPerStep: balanced.cpuMsPerStep.haproxy,
      /** A task-less reset's hand-out from the shared pool (median, one at a time). */
      poolHandOutMs: pool.handOut.median,
      /** A finished episode's reward added to its group (median, one at a time). */
      poolAddToGroupMs: pool.addToGroup.median,
      /** PostgreSQL's CPU per step for the pool alone (hand-outs and rewards; loaded runs). */
      poolPostgresCpuMsPerStep: curriculum.cpuMsPerStep.postgres - byIndex.cpuMsPerStep.postgres,
      /** PostgreSQL's CPU per step in all: the buffer (retrieval catch-up, write-back) and the pool. */
      postgresCpuMsPerStep: curriculum.cpuMsPerStep.postgres,
      /** An instance's own CPU per step: N instances need N times this of cores. */
      instanceCpuMsPerStep: curriculum.cpuMsPerStep.instances,
    };
    console.log(
      `overhead: the balancer adds ${overhead.balancerLatencyMs.toFixed(2)} ms to a request and ${overhead.balancerCpuMsPerStep.toFixed(3)} ms of CPU; the pool's hand-out takes ${overhead.poolHandOutMs.toFixed(2)} ms, a reward ${overhead.poolAddToGroupMs.toFixed(2)} ms, ${overhead.poolPostgresCpuMsPerStep.toFixed(3)} ms of PostgreSQL CPU a step; PostgreSQL in all ${overhead.postgresCpuMsPerStep.toFixed(3)} ms a step; an instance ${overhead.instanceCpuMsPerStep.toFixed(2)} ms a step.`,
    );
    return {
      note: 'Measured on the 2-core development machine: 2 and 3 instances share the same two cores with HAProxy, PostgreSQL and the clients, so they cannot show scaling. The CPU per step of each part is the figure that predicts it on a bigger machine.',
      clients: CLIENTS,
      stepsPerRun: STEPS,
      hop,
      pool,
      runs,
      overhead,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)),
    );
    postgres.stop();
  }
}
