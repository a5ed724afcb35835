/**
 * `dreamgym serve --env webshop` throughput over HTTP on loopback: steps/s and step latency with
 * 1 and 8 concurrent clients, each with its own session, in AgentGym's WebShop protocol. The
 * server runs as its own process, as it does beside a trainer; clients play a fixed script
 * (search the instruction's first words, open the first result, buy) for a fixed number of
 * steps, so the run stops by itself. The same script in-process gives the cost of the env alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { envEntry } from '../src/envs/registry.ts';

const STEPS_PER_LEVEL = 3000;
const TASKS = 500;
const bin = join(import.meta.dirname, '../bin/dreamgym.js');

/** One scripted episode's next action, from the page text (WebShop protocol or in-process). */
function nextAction(page: string, instruction: string): string {
  if (page.includes('[Search]')) return `search[${instruction.split(' ').slice(2, 6).join(' ')}]`;
  if (page.includes('[Buy Now]')) return 'click[buy now]';
  const asin = /\[(B0[A-Z0-9]{8})\]/.exec(page)?.[1];
  return asin ? `click[${asin.toLowerCase()}]` : 'click[back to search]';
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--env', 'webshop', '--port', '0', '--max-sessions', '16'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
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

function post<T>(url: string, body: object): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text) as T)
            : reject(new Error(`${url}: HTTP ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `clients` concurrent sessions stepping until `STEPS_PER_LEVEL` steps are done in all. */
async function level(url: string, clients: number) {
  const latencies: number[] = [];
  let budget = STEPS_PER_LEVEL;
  let episodes = 0;
  const client = async (k: number) => {
    const id = await post<number>(`${url}/create`, {});
    for (let episode = 0; budget > 0; episode++) {
      const index = (k * 97 + episode * 31) % TASKS;
      let [page] = await post<[string, null]>(`${url}/reset`, { env_idx: id, session_id: index });
      const instruction = /Instruction:\n(.*)/.exec(page)?.[1] ?? '';
      for (let done = false; !done && budget > 0; ) {
        budget--; // taken before awaiting, so concurrent clients stop at the budget together
        const start = process.hrtime.bigint();
        const step = await post<{ state: string; done: boolean }>(`${url}/step`, {
          env_idx: id,
          action: nextAction(page, instruction),
        });
        latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
        page = step.state;
        done = step.done;
      }
      episodes++;
    }
    await post(`${url}/close`, { env_idx: id });
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))] as number;
  return {
    clients,
    steps: latencies.length,
    episodes,
    seconds,
    stepsPerSecond: latencies.length / seconds,
    stepMs: { median: at(0.5), p90: at(0.9), p99: at(0.99) },
  };
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

export default async function serverBench() {
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
    agent.destroy();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
