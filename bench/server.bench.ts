/**
 * `dreamgym serve` over HTTP on loopback, in AgentGym's WebShop protocol, the server in its own
 * process as beside a trainer; clients play a fixed script (search the instruction's first
 * words, open the first result, buy), each with its own session.
 * - `webshop`: steps/s and step latency with 1 and 8 clients; the same script in-process gives
 *   the cost of the env alone.
 * - `synthetic`: `serve --env synthetic:webshop` with 64 clients, step p50/p99 without and then
 *   with a concurrent `buffer import` into its buffer that takes it past the ANN threshold
 *   (issue 22: a step once took 56 s while the server rebuilt the index on its main thread).
 * - `soak`: RSS of `serve --env webshop` over a long run (BENCH_SOAK_STEPS, default 200k), with
 *   Node's default heap sizing and with `--max-old-space-size=384`.
 * - `workers`: `serve --env synthetic:webshop --workers N` (LLM-free) with 64 clients for N = 1, 2
 *   and 4 (BENCH_SERVER_WORKERS), each on a fresh copy of one buffer: steps/s and step p50/p99.
 *   Each client keeps one connection, so its session lives in that connection's worker; runs at 1
 *   and 2 workers with 16 pooled connections shared by the clients (as the `synthetic` part) price
 *   the routing: at 2 workers about half the requests are forwarded to the worker holding their
 *   session. Speedups are over 1 worker with the same connections.
 * BENCH_SERVER_PARTS=webshop,synthetic,soak,workers picks parts; BENCH_SYNTHETIC_STEPS,
 * BENCH_SERVER_IMPORT_EPISODES and BENCH_SOAK_STEPS scale them down on a busy machine;
 * BENCH_SERVER_NODE_FLAGS passes Node flags to the synthetic server (e.g. `--cpu-prof`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { envEntry } from '../src/envs/registry.ts';
import { postJson } from './post-json.ts';

const STEPS_PER_LEVEL = 3000;
const TASKS = 500;
const SYNTHETIC_CLIENTS = 64;
const SYNTHETIC_STEPS = Number(process.env.BENCH_SYNTHETIC_STEPS ?? 6000);
/** Episodes imported while the synthetic server serves: ~4 transitions each, past 50k. */
const IMPORT_EPISODES = Number(process.env.BENCH_SERVER_IMPORT_EPISODES ?? 15_000);
const SOAK_STEPS = Number(process.env.BENCH_SOAK_STEPS ?? 200_000);
const PARTS = (process.env.BENCH_SERVER_PARTS ?? 'webshop,synthetic,soak,workers').split(',');
const WORKER_COUNTS = (process.env.BENCH_SERVER_WORKERS ?? '1,2,4').split(',').map(Number);
const bin = join(import.meta.dirname, '../scripts/dreamgym-dev.js');

/** One scripted episode's next action, from the page text (WebShop protocol or in-process). */
function nextAction(page: string, instruction: string): string {
  if (page.includes('[Search]')) return `search[${instruction.split(' ').slice(2, 6).join(' ')}]`;
  if (page.includes('[Buy Now]')) return 'click[buy now]';
  const asin = /\[(B0[A-Z0-9]{8})\]/.exec(page)?.[1];
  return asin ? `click[${asin.toLowerCase()}]` : 'click[back to search]';
}

async function startServer(
  args: string[] = ['--env', 'webshop', '--max-sessions', '16'],
  nodeFlags: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeFlags, bin, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  for (let waited = 0; !/Ctrl-C to stop/.test(out); waited += 50) {
    if (child.exitCode !== null || waited > 60_000) throw new Error(`serve did not start: ${out}`);
    await sleep(50);
  }
  return { url: /at (http:\/\/\S+)/.exec(out)?.[1] as string, child };
}

/**
 * Keep-alive connections, one per client. Node's `http` rather than `fetch`: fetch costs the
 * client more CPU per request than the server spends, and client and server share 2 cores here.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

const post = <T>(url: string, body: object, via: Agent = agent): Promise<T> =>
  postJson<T>(url, body, via);

/**
 * `clients` concurrent sessions stepping until `steps` steps are done in all, or until `until`
 * says stop; `onStep` sees the running step count. The clients share the pooled connections of
 * `agent`, or with `connectionPerClient` each keeps one of its own.
 */
async function level(
  url: string,
  clients: number,
  {
    steps = STEPS_PER_LEVEL,
    until = () => false,
    onStep = () => {},
    connectionPerClient = false,
  }: {
    steps?: number;
    until?: () => boolean;
    onStep?: (done: number) => void;
    connectionPerClient?: boolean;
  } = {},
) {
  const latencies: number[] = [];
  let budget = steps;
  let episodes = 0;
  const client = async (k: number) => {
    const via = connectionPerClient ? new Agent({ keepAlive: true, maxSockets: 1 }) : agent;
    const id = await post<number>(`${url}/create`, {}, via);
    for (let episode = 0; budget > 0; episode++) {
      const index = (k * 97 + episode * 31) % TASKS;
      let [page] = await post<[string, null]>(
        `${url}/reset`,
        { env_idx: id, session_id: index },
        via,
      );
      const instruction = /Instruction:\n(.*)/.exec(page)?.[1] ?? '';
      for (let done = false; !done && budget > 0; ) {
        if (until()) budget = 0;
        budget--; // taken before awaiting, so concurrent clients stop at the budget together
        const start = process.hrtime.bigint();
        const step = await post<{ state: string; done: boolean }>(
          `${url}/step`,
          { env_idx: id, action: nextAction(page, instruction) },
          via,
        );
        latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
        onStep(latencies.length);
        page = step.state;
        done = step.done;
      }
      episodes++;
    }
    await post(`${url}/close`, { env_idx: id }, via);
    if (via !== agent) via.destroy();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  const seconds = (performance.now() - started) / 1000;
  return {
    clients,
    steps: latencies.length,
    episodes,
    seconds,
    stepsPerSecond: latencies.length / seconds,
    stepMs: quantiles(latencies),
  };
}

function quantiles(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor(q * (sorted.length - 1))] as number;
  return { median: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) as number };
}

/** Runs `dreamgym ARGS` to the end; fails with its output if it fails. */
async function dreamgym(args: string[]): Promise<void> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  child.stderr?.on('data', (c) => {
    out += c;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`dreamgym ${args.join(' ')} failed: ${out}`);
}

/** `copies` relabelled copies of a trajectory file's lines (new ids), as one file. */
async function multiply(from: string, to: string, copies: number): Promise<void> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(from) })) {
    if (line.trim()) lines.push(line);
  }
  const out = createWriteStream(to);
  for (let c = 0; c < copies; c++) {
    for (const line of lines) {
      if (!out.write(`${line.replace(/"id":"/, `"id":"copy${c}-`)}\n`)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
}

/**
 * The synthetic server with 64 clients: a quiet phase, then a phase while another process
 * imports IMPORT_EPISODES episodes into its buffer (and for as long again after the import ends,
 * while the server indexes them).
 */
async function syntheticBench() {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-bench-server-'));
  const offline = join(dir, 'offline.jsonl');
  const big = join(dir, 'big.jsonl');
  const db = join(dir, 'buffer.db');
  try {
    console.log('synthetic: collecting 1,000 offline episodes and importing them…');
    await offlineBuffer(offline, db);
    await multiply(offline, big, Math.ceil(IMPORT_EPISODES / 1000));
    const { url, child } = await startServer(
      ['--env', 'synthetic:webshop', '--db', db, '--max-sessions', String(SYNTHETIC_CLIENTS)],
      // e.g. BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server
      (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    );
    try {
      await level(url, 8, { steps: 200 }); // warm-up
      console.log(`synthetic: ${SYNTHETIC_CLIENTS} clients, no import…`);
      const quiet = await level(url, SYNTHETIC_CLIENTS, { steps: SYNTHETIC_STEPS });
      console.log(
        `synthetic: ${SYNTHETIC_CLIENTS} clients while importing ${IMPORT_EPISODES} episodes…`,
      );
      let importing = true;
      let importSeconds = 0;
      const importStarted = performance.now();
      const importer = dreamgym(['buffer', 'import', big, '--db', db]).finally(() => {
        importing = false;
        importSeconds = (performance.now() - importStarted) / 1000;
      });
      // Steps while the import runs, then as many again (at least SYNTHETIC_STEPS) while the
      // server indexes what was imported.
      let steps = 0;
      let stepsAtImportEnd = 0;
      const during = await level(url, SYNTHETIC_CLIENTS, {
        steps: Number.POSITIVE_INFINITY,
        onStep: (done) => {
          steps = done;
          if (importing) stepsAtImportEnd = done;
        },
        until: () =>
          !importing && steps - stepsAtImportEnd >= Math.max(SYNTHETIC_STEPS, stepsAtImportEnd),
      });
      await importer;
      const result = {
        clients: SYNTHETIC_CLIENTS,
        importedEpisodes: Math.ceil(IMPORT_EPISODES / 1000) * 1000,
        importSeconds,
        quiet,
        withImport: during,
      };
      return result;
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A buffer at `db` of 1,000 offline webshop episodes (ε-greedy expert), collected to `offline`. */
async function offlineBuffer(offline: string, db: string): Promise<void> {
  await dreamgym([
    'collect',
    '--env',
    'webshop',
    '--episodes',
    '1000',
    '--epsilon',
    '0.3',
    '--out',
    offline,
  ]);
  await dreamgym(['buffer', 'import', offline, '--db', db]);
}

/** `db` and the files beside it that belong to it (ANN indexes), copied into `dir`. */
function copyBuffer(db: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const from = join(db, '..');
  const name = db.slice(from.length + 1);
  for (const file of readdirSync(from).filter((f) => f.startsWith(name))) {
    copyFileSync(join(from, file), join(dir, file));
  }
  return join(dir, name);
}

/**
 * `serve --env synthetic:webshop --workers N` with 64 clients, for each worker count on a fresh
 * copy of one buffer (episodes are written back as they finish): steps/s and step latency with a
 * connection per client, and at 1 and 2 workers with pooled connections (requests forwarded).
 */
async function workersBench() {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-bench-workers-'));
  const db = join(dir, 'buffer.db');
  const runs: Array<Awaited<ReturnType<typeof level>> & { workers: number; connections: string }> =
    [];
  try {
    console.log('workers: collecting 1,000 offline episodes and importing them…');
    await offlineBuffer(join(dir, 'offline.jsonl'), db);
    const settings = [
      ...WORKER_COUNTS.map((workers) => ({ workers, connectionPerClient: true })),
      ...WORKER_COUNTS.filter((workers) => workers <= 2).map((workers) => ({
        workers,
        connectionPerClient: false,
      })),
    ];
    for (const [i, { workers, connectionPerClient }] of settings.entries()) {
      const connections = connectionPerClient ? 'one per client' : '16 pooled';
      const copy = copyBuffer(db, join(dir, `run${i}`));
      const { url, child } = await startServer([
        '--env',
        'synthetic:webshop',
        '--db',
        copy,
        '--max-sessions',
        String(SYNTHETIC_CLIENTS),
        '--workers',
        String(workers),
      ]);
      try {
        // Warm-up in every worker: their models and indexes load on first use.
        await level(url, 16, { steps: 200 * workers, connectionPerClient: true });
        const run = await level(url, SYNTHETIC_CLIENTS, {
          steps: SYNTHETIC_STEPS,
          connectionPerClient,
        });
        runs.push({ workers, connections, ...run });
        console.log(
          `workers ${workers}, ${SYNTHETIC_CLIENTS} clients, connections ${connections}: ${run.stepsPerSecond.toFixed(0)} steps/s, ` +
            `p50 ${run.stepMs.median.toFixed(1)} ms p99 ${run.stepMs.p99.toFixed(1)} ms`,
        );
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    const speedups = runs.map((r) => {
      const one = runs.find((o) => o.workers === 1 && o.connections === r.connections);
      return {
        workers: r.workers,
        connections: r.connections,
        speedup: one ? r.stepsPerSecond / one.stepsPerSecond : null,
      };
    });
    for (const s of speedups) {
      if (s.speedup !== null) {
        console.log(
          `  ${s.workers} workers (${s.connections}): ${s.speedup.toFixed(2)}× one worker (${s.connections})`,
        );
      }
    }
    return { clients: SYNTHETIC_CLIENTS, steps: SYNTHETIC_STEPS, runs, speedups };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same script on the env itself: what the server adds is the rest. */
async function inProcess() {
  const entry = envEntry('webshop');
  const env = entry.make({});
  const tasks = entry.tasks({}).tasks('train', TASKS);
  let steps = 0;
  const started = performance.now();
  for (let episode = 0; steps < STEPS_PER_LEVEL; episode++) {
    const task = tasks[(episode * 31) % TASKS];
    let { observation } = await env.reset({ ...(task && { task }) });
    for (let done = false; !done && steps < STEPS_PER_LEVEL; steps++) {
      const result = await env.step(nextAction(observation.text, observation.instruction));
      observation = result.observation;
      done = result.terminated || result.truncated;
    }
  }
  await env.close();
  const seconds = (performance.now() - started) / 1000;
  return { steps, seconds, stepsPerSecond: steps / seconds };
}

/** Resident set size of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** `serve --env webshop` for SOAK_STEPS steps with 8 clients, its RSS every tenth of the run. */
async function soak(nodeFlags: string[]) {
  const { url, child } = await startServer(['--env', 'webshop', '--max-sessions', '16'], nodeFlags);
  const pid = child.pid as number;
  const every = Math.max(1, Math.floor(SOAK_STEPS / 10));
  const rss: Array<{ steps: number; rssMiB: number }> = [{ steps: 0, rssMiB: rssMiB(pid) }];
  try {
    const run = await level(url, 8, {
      steps: SOAK_STEPS,
      onStep: (done) => {
        if (done % every === 0) rss.push({ steps: done, rssMiB: rssMiB(pid) });
      },
    });
    return {
      nodeFlags,
      steps: run.steps,
      failures: 0, // a failed step throws and ends the bench
      stepsPerSecond: run.stepsPerSecond,
      stepMs: run.stepMs,
      rss,
      peakRssMiB: Math.max(...rss.map((r) => r.rssMiB)),
    };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

async function webshopBench() {
  const { url, child } = await startServer();
  try {
    await level(url, 1); // warm-up: the search index and the reward's POS model load on first use
    const results = {
      inProcess: await inProcess(),
      http: [await level(url, 1), await level(url, 8)],
    };
    console.log(`in-process: ${results.inProcess.stepsPerSecond.toFixed(0)} steps/s`);
    for (const r of results.http) {
      console.log(
        `HTTP, ${r.clients} client${r.clients > 1 ? 's' : ''}: ${r.stepsPerSecond.toFixed(0)} steps/s, ` +
          `step p50 ${r.stepMs.median.toFixed(2)} ms p90 ${r.stepMs.p90.toFixed(2)} ms p99 ${r.stepMs.p99.toFixed(2)} ms`,
      );
    }
    return results;
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

export default async function serverBench() {
  const results: Record<string, unknown> = {};
  try {
    if (PARTS.includes('webshop')) results.webshop = await webshopBench();
    if (PARTS.includes('synthetic')) {
      const synthetic = await syntheticBench();
      results.synthetic = synthetic;
      for (const [phase, r] of [
        ['quiet', synthetic.quiet],
        ['with import', synthetic.withImport],
      ] as const) {
        console.log(
          `synthetic, ${synthetic.clients} clients, ${phase}: ${r.steps} steps, ${r.stepsPerSecond.toFixed(0)} steps/s, ` +
            `p50 ${r.stepMs.median.toFixed(1)} ms p99 ${r.stepMs.p99.toFixed(1)} ms max ${r.stepMs.max.toFixed(0)} ms`,
        );
      }
      console.log(
        `  import of ${synthetic.importedEpisodes} episodes took ${synthetic.importSeconds.toFixed(1)} s`,
      );
    }
    if (PARTS.includes('soak')) {
      results.soak = [await soak([]), await soak(['--max-old-space-size=384'])];
      for (const r of results.soak as Array<Awaited<ReturnType<typeof soak>>>) {
        console.log(
          `soak ${r.steps} steps ${r.nodeFlags.join(' ') || '(default heap)'}: RSS ${r.rss
            .map((x) => x.rssMiB.toFixed(0))
            .join(' → ')} MiB, p99 ${r.stepMs.p99.toFixed(1)} ms`,
        );
      }
    }
    if (PARTS.includes('workers')) results.workers = await workersBench();
    return results;
  } finally {
    agent.destroy();
  }
}
