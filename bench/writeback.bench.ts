/**
 * `npm run bench -- writeback`: `dreamgym serve --env synthetic:webshop --db postgres://…`
 * (LLM-free) under closed-loop load, and whether every episode a client saw finish reaches the
 * buffer (issue 58). Each client keeps one connection and a session; it tags its episodes by
 * their first action (`search[… #c<client>e<episode>]`), so the episodes stored can be matched
 * to those the clients saw end. PostgreSQL runs with fsync on, as in production.
 * - `load`: CLIENTS (64) clients for SECONDS (120) s, then SIGTERM, once as served by default and
 *   once with `--durable`: episodes finished, left unfinished and stored, steps/s, step and
 *   final-step latency, and how far the buffer ran behind the clients (sampled every second).
 * - `kill`: the same load for KILL_SECONDS (30) s, then SIGKILL, by default and with `--durable`:
 *   the episodes clients saw finish that are missing from the buffer (`finishedMissing`).
 * Open episodes are recorded as abandoned at SIGTERM; only those that took a step carry a tag
 * (`unfinishedStepped`, `unfinishedStored`). `writeback.before.json` is the load part run on the
 * code before issue 58 (default mode only: it had no `--durable`).
 * BENCH_WRITEBACK_PARTS=load,kill picks parts, BENCH_WRITEBACK_MODES=default,durable the modes;
 * BENCH_WRITEBACK_CLIENTS, BENCH_WRITEBACK_SECONDS and BENCH_WRITEBACK_KILL_SECONDS scale them;
 * BENCH_WRITEBACK_NODE_FLAGS passes Node flags to the server (e.g. `--cpu-prof`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../src/replay/testing/postgres-server.ts';
import { postJson } from './post-json.ts';

const CLIENTS = Number(process.env.BENCH_WRITEBACK_CLIENTS ?? 64);
const SECONDS = Number(process.env.BENCH_WRITEBACK_SECONDS ?? 120);
const KILL_SECONDS = Number(process.env.BENCH_WRITEBACK_KILL_SECONDS ?? 30);
const PARTS = (process.env.BENCH_WRITEBACK_PARTS ?? 'load,kill').split(',');
const MODES = (process.env.BENCH_WRITEBACK_MODES ?? 'default,durable').split(',');
const NODE_FLAGS = (process.env.BENCH_WRITEBACK_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const TASKS = 500;
const bin = join(import.meta.dirname, '../scripts/dreamgym-dev.js');

type Mode = 'default' | 'durable';

/** What the clients saw: episodes by tag, and step latencies in ms. */
interface ClientLog {
  finished: Set<string>;
  unfinished: Set<string>;
  /** Episodes that took at least one step (an abandoned one is stored only then). */
  stepped: Set<string>;
  stepMs: number[];
  finalStepMs: number[];
  resetMs: number[];
  failed: number;
}

/** One scripted episode's next action from the page text; the first one carries the tag. */
function nextAction(page: string, instruction: string): string {
  if (page.includes('[Buy Now]')) return 'click[buy now]';
  const asin = /\[(B0[A-Z0-9]{8})\]/.exec(page)?.[1];
  if (asin) return `click[${asin.toLowerCase()}]`;
  return `search[${instruction.split(' ').slice(2, 6).join(' ')}]`;
}

/** Clients stepping until `stop()` says so (or the server goes away), noting it in `log`. */
async function drive(url: string, clients: number, stop: () => boolean, log: ClientLog) {
  const client = async (k: number) => {
    const via = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const id = await postJson<number>(`${url}/create`, {}, via);
      for (let episode = 0; !stop(); episode++) {
        const tag = `c${k}e${episode}`;
        const resetStart = performance.now();
        let [page] = await postJson<[string, null]>(
          `${url}/reset`,
          { env_idx: id, session_id: (k * 97 + episode * 31) % TASKS },
          via,
        );
        log.resetMs.push(performance.now() - resetStart);
        const instruction = /Instruction:\n(.*)/.exec(page)?.[1] ?? '';
        log.unfinished.add(tag);
        let action = `search[${instruction.split(' ').slice(2, 6).join(' ')} #${tag}]`;
        for (let done = false; !done && !stop(); ) {
          const start = performance.now();
          const step = await postJson<{ state: string; done: boolean }>(
            `${url}/step`,
            { env_idx: id, action },
            via,
          );
          const ms = performance.now() - start;
          log.stepMs.push(ms);
          log.stepped.add(tag);
          page = step.state;
          done = step.done;
          if (done) {
            log.finalStepMs.push(ms);
            log.unfinished.delete(tag);
            log.finished.add(tag);
          }
          action = nextAction(page, instruction);
        }
      }
    } catch {
      log.failed++; // the server went away (the kill runs) with this client's request in flight
    } finally {
      via.destroy();
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
}

function quantiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
  return { median: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? 0 };
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

/** `serve` on a free port; its stderr is kept for the report. */
async function startServer(
  db: string,
  mode: Mode,
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const args = ['serve', '--port', '0', '--env', 'synthetic:webshop', '--db', db];
  args.push('--max-sessions', String(CLIENTS), ...(mode === 'durable' ? ['--durable'] : []));
  const child = spawn(process.execPath, [...NODE_FLAGS, bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  for (let waited = 0; !/Ctrl-C to stop/.test(out); waited += 50) {
    if (child.exitCode !== null || waited > 120_000) {
      throw new Error(`serve did not start: ${out}${err}`);
    }
    await sleep(50);
  }
  return { url: /at (http:\/\/\S+)/.exec(out)?.[1] as string, child, stderr: () => err };
}

/** The tags of the episodes stored as synthetic, from their first action. */
async function storedTags(db: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT action FROM transitions WHERE t = 0 AND provenance = 'synthetic'",
    );
    return new Set(rows.flatMap((r) => /#(c\d+e\d+)\]/.exec(r.action as string)?.[1] ?? []));
  } finally {
    await client.end();
  }
}

/** Samples, every second, how many finished episodes are not in the buffer yet. */
function sampleLag(db: string, finished: () => number) {
  const client = new pg.Client({ connectionString: db });
  const lags: number[] = [];
  let running = true;
  const done = (async () => {
    await client.connect();
    while (running) {
      const seen = finished();
      const { rows } = await client.query(
        "SELECT COUNT(*)::int AS n FROM trajectories WHERE provenance = 'synthetic'",
      );
      lags.push(Math.max(0, seen - (rows[0].n as number)));
      await sleep(1000);
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return { maxBehind: Math.max(0, ...lags), medianBehind: quantiles(lags).median };
    },
  };
}

/** One run: clients for `seconds`, then the server stopped by `signal`; what reached the buffer. */
async function run(postgres: Databases, mode: Mode, seconds: number, signal: NodeJS.Signals) {
  const db = await postgres.copy();
  const server = await startServer(db, mode);
  const log: ClientLog = {
    finished: new Set(),
    unfinished: new Set(),
    stepped: new Set(),
    stepMs: [],
    finalStepMs: [],
    resetMs: [],
    failed: 0,
  };
  const lag = sampleLag(db, () => log.finished.size);
  const started = performance.now();
  let stopping = false;
  const deadline = setTimeout(() => {
    if (signal === 'SIGKILL') server.child.kill('SIGKILL');
    stopping = true;
  }, seconds * 1000);
  await drive(server.url, CLIENTS, () => stopping, log);
  clearTimeout(deadline);
  const elapsed = (performance.now() - started) / 1000;
  const stopStarted = performance.now();
  if (signal === 'SIGTERM') server.child.kill('SIGTERM');
  if (server.child.exitCode === null && server.child.signalCode === null) {
    await once(server.child, 'exit');
  }
  const shutdownSeconds = (performance.now() - stopStarted) / 1000;
  const behind = await lag.stop();
  const stored = await storedTags(db);
  const missing = [...log.finished].filter((tag) => !stored.has(tag));
  const result = {
    mode,
    clients: CLIENTS,
    seconds: elapsed,
    stoppedBy: signal,
    shutdownSeconds,
    finished: log.finished.size,
    unfinished: log.unfinished.size,
    stored: stored.size,
    finishedMissing: missing.length,
    // Episodes left open are recorded as abandoned when the server closes (SIGTERM); those that
    // took a step carry their tag into the buffer.
    unfinishedStepped: [...log.unfinished].filter((tag) => log.stepped.has(tag)).length,
    unfinishedStored: [...log.unfinished].filter((tag) => stored.has(tag)).length,
    stepsPerSecond: log.stepMs.length / elapsed,
    stepMs: quantiles(log.stepMs),
    finalStepMs: quantiles(log.finalStepMs),
    resetMs: quantiles(log.resetMs),
    ...behind,
    serverWarnings: server.stderr().trim().split('\n').filter(Boolean),
  };
  console.log(
    `${mode}, ${signal} after ${elapsed.toFixed(0)} s: ${result.finished} finished, ${result.unfinished} unfinished, ${result.stored} stored, ${missing.length} finished missing; ` +
      `${result.stepsPerSecond.toFixed(0)} steps/s, final step p50 ${result.finalStepMs.median.toFixed(1)} ms p99 ${result.finalStepMs.p99.toFixed(1)} ms; ` +
      `buffer behind by ${behind.maxBehind} at most; shutdown ${shutdownSeconds.toFixed(1)} s`,
  );
  for (const line of result.serverWarnings.slice(0, 5)) console.log(`  server: ${line}`);
  return result;
}

/** A database with the offline buffer, copied afresh for each run. */
interface Databases {
  copy(): Promise<string>;
}

async function offlineDatabase(server: TestPostgres, dir: string): Promise<Databases> {
  const base = await server.newDatabase();
  const offline = join(dir, 'offline.jsonl');
  console.log('writeback: collecting 1,000 offline episodes and importing them…');
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
  await dreamgym(['buffer', 'import', offline, '--db', base]);
  const admin = base.replace(/\/[^/]+$/, '/postgres');
  const name = base.slice(base.lastIndexOf('/') + 1);
  let copies = 0;
  return {
    async copy() {
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        const copy = `${name}_run${copies++}`;
        await client.query(`CREATE DATABASE ${copy} TEMPLATE ${name}`);
        return base.replace(/\/[^/]+$/, `/${copy}`);
      } finally {
        await client.end();
      }
    },
  };
}

export default async function writebackBench() {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-bench-writeback-'));
  const server = await startTestPostgres({ fsync: true });
  try {
    const databases = await offlineDatabase(server, dir);
    const modes = MODES as Mode[];
    const load = [];
    const kill = [];
    if (PARTS.includes('load')) {
      for (const mode of modes) load.push(await run(databases, mode, SECONDS, 'SIGTERM'));
    }
    if (PARTS.includes('kill')) {
      for (const mode of modes) kill.push(await run(databases, mode, KILL_SECONDS, 'SIGKILL'));
    }
    return { clients: CLIENTS, seconds: SECONDS, killSeconds: KILL_SECONDS, load, kill };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
