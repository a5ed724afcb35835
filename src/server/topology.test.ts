/**
 * DreamGym past one machine, on one machine with the real parts: Debian's PostgreSQL (the replay
 * buffer and the curriculum's task pool, one database), three `dreamgym serve` processes
 * (`--instance I/3`) and Debian's HAProxy with the documented `deploy/haproxy.cfg`, driven by
 * clients of both protocols through the balancer only. Loopback only.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PostgresTaskPool } from '../curriculum/postgres-task-pool.ts';
import { PostgresReplayBuffer } from '../replay/postgres-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { startTestPostgres, type TestPostgres } from '../replay/testing/postgres-server.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';

const root = join(import.meta.dirname, '../..');
const INSTANCES = 3;
const GROUP_SIZE = 4;

/** A `dreamgym serve` process of the topology. */
interface Instance {
  index: number;
  url: string;
  process: ChildProcess;
  output: () => string;
}

let postgres: TestPostgres;
let database: string;
let haproxy: ChildProcess;
let haLog = '';
let lb: string;
let stats: string;
const instances: Instance[] = [];

/** HAProxy's executable (Debian puts it in /usr/sbin, off a user's PATH), or the error that names the fix. */
function requireHaproxy(): string {
  for (const candidate of ['haproxy', '/usr/sbin/haproxy']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  throw new Error(
    'the topology test needs HAProxy (Debian’s haproxy package): run `npm run setup`, which installs it when missing.',
  );
}

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

/** Starts `dreamgym serve` as instance `index` of 3 on a free port and waits for its banner. */
async function startInstance(index: number): Promise<Instance> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(root, 'scripts/dreamgym-dev.js'),
      'serve',
      '--env',
      'synthetic:webshop',
      '--db',
      database,
      '--tasks',
      database,
      '--curriculum',
      'variance',
      '--group-size',
      String(GROUP_SIZE),
      '--batch-tasks',
      '1',
      '--instance',
      `${index}/${INSTANCES}`,
      '--port',
      String(port),
      '--max-steps',
      '3',
      '--drain-timeout',
      '20',
      // As deploy runs them: an episode is in the buffer before its last step is answered.
      '--durable',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  for (let waited = 0; !/Ctrl-C to stop/.test(out); waited += 100) {
    if (child.exitCode !== null || waited > 90_000) {
      throw new Error(`instance ${index} did not start: ${out}`);
    }
    await sleep(100);
  }
  return { index, url: `http://127.0.0.1:${port}`, process: child, output: () => out };
}

/** HAProxy's view of its servers: `backend/server` → UP, DOWN, … */
async function serverStates(): Promise<Record<string, string>> {
  const csv = await (await fetch(`${stats}/;csv`)).text();
  const states: Record<string, string> = {};
  for (const line of csv.split('\n')) {
    const cells = line.split(',');
    if (cells[1]?.startsWith('dreamgym')) states[`${cells[0]}/${cells[1]}`] = cells[17] ?? '';
  }
  return states;
}

/** Waits until HAProxy sees each server of each backend as `want` says (up to 20 s). */
async function waitForStates(want: (key: string) => 'UP' | 'DOWN'): Promise<void> {
  let states: Record<string, string> = {};
  for (let waited = 0; waited < 20_000; waited += 200) {
    states = await serverStates();
    const keys = Object.keys(states);
    if (keys.length === 2 * INSTANCES && keys.every((k) => states[k]?.startsWith(want(k)))) return;
    await sleep(200);
  }
  throw new Error(`HAProxy's servers did not reach the expected states: ${JSON.stringify(states)}`);
}

beforeAll(async () => {
  const haproxyBin = requireHaproxy();
  postgres = await startTestPostgres();
  database = await postgres.newDatabase();
  const buffer = await PostgresReplayBuffer.open({
    url: database,
    encoder: new TransitionEncoder(),
  });
  await buffer.add(await webshopTrajectories(60));
  await buffer.close();
  instances.push(...(await Promise.all([0, 1, 2].map(startInstance))));
  const [lbPort, statsPort] = [await freePort(), await freePort()];
  lb = `http://127.0.0.1:${lbPort}`;
  stats = `http://127.0.0.1:${statsPort}`;
  haproxy = spawn(haproxyBin, ['-db', '-f', join(root, 'deploy/haproxy.cfg')], {
    // Its request log goes to stdout (for `docker compose logs`); its warnings are kept.
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DREAMGYM_LB_BIND: `127.0.0.1:${lbPort}`,
      DREAMGYM_LB_STATS: `127.0.0.1:${statsPort}`,
      ...Object.fromEntries(
        instances.map((i) => [`DREAMGYM_${i.index}`, i.url.slice('http://'.length)]),
      ),
    },
  });
  haproxy.stderr?.on('data', (chunk) => {
    haLog += chunk;
  });
  for (let waited = 0; ; waited += 100) {
    if (haproxy.exitCode !== null) throw new Error(`HAProxy exited: ${haLog}`);
    if (
      await fetch(`${stats}/;csv`).then(
        () => true,
        () => false,
      )
    )
      break;
    if (waited > 10_000) throw new Error('HAProxy did not start');
    await sleep(100);
  }
  await waitForStates(() => 'UP');
}, 240_000);

afterAll(async () => {
  for (const instance of instances) instance.process.kill('SIGKILL');
  haproxy?.kill('SIGKILL');
  postgres?.stop();
});

/** A request's failure as the client sees it: the status and the server's `detail`. */
class RequestFailed extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${status}: ${detail}`);
  }
}

/** One request through the balancer: its JSON answer, or a {@link RequestFailed}. */
async function request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${lb}${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  const text = await response.text();
  if (!response.ok) {
    const detail = (() => {
      try {
        return (JSON.parse(text) as { detail?: string }).detail ?? text;
      } catch {
        return text;
      }
    })();
    throw new RequestFailed(response.status, detail);
  }
  return JSON.parse(text);
}

const post = (path: string, body: unknown) => request('POST', path, body);

/** What every client does: open a session, play episodes, say where it lives. */
interface Client {
  readonly kind: string;
  /** The instance holding the session (its id mod 3), where the protocol names the session. */
  instance(): number | undefined;
  /** Starts an episode (a curriculum task); its instruction. */
  reset(): Promise<string>;
  /** One step; whether the episode ended. */
  step(action: string): Promise<boolean>;
  /** The id the client gave the current episode, where the protocol lets it name one. */
  episodeId(): string | undefined;
  close(): Promise<void>;
}

/** AgentGym's WebShop protocol: `env_idx` in every request. */
async function agentgymClient(): Promise<Client> {
  const id = (await post('/create', {})) as number;
  return {
    kind: 'agentgym',
    instance: () => id % INSTANCES,
    reset: async () => {
      await post('/reset', { env_idx: id });
      const text = (await request('GET', `/instruction_text?env_idx=${id}`)) as string;
      return text.replace(/^Instruction:\s*/, '');
    },
    step: async (action) =>
      ((await post('/step', { env_idx: id, action })) as { done: boolean }).done,
    episodeId: () => undefined,
    close: async () => {
      await post('/close', { env_idx: id }).catch(() => undefined);
    },
  };
}

let episodes = 0;
/** The ids clients gave their episodes since the last look. */
const named: string[] = [];
const nextEpisodeId = (kind: string) => {
  const id = `${kind}-${episodes++}`;
  named.push(id);
  return id;
};

/** OpenEnv over HTTP: the first reset opens a session, whose `session_id` later requests name. */
function openenvHttpClient(): Client {
  let session: number | undefined;
  let episode: string | undefined;
  return {
    kind: 'openenv-http',
    instance: () => (session === undefined ? undefined : session % INSTANCES),
    reset: async () => {
      episode = nextEpisodeId('http');
      const reply = (await post('/openenv/reset', {
        ...(session !== undefined && { session_id: session }),
        episode_id: episode,
      })) as { session_id: number; observation: { instruction: string } };
      session = reply.session_id;
      return reply.observation.instruction;
    },
    step: async (action) =>
      (
        (await post('/openenv/step', { session_id: session, action: { action } })) as {
          done: boolean;
        }
      ).done,
    episodeId: () => episode,
    close: async () => {
      if (session !== undefined)
        await post('/openenv/close', { session_id: session }).catch(() => undefined);
    },
  };
}

/** OpenEnv's WebSocket: the connection is the session, on whichever instance took it. */
async function openenvWsClient(): Promise<Client> {
  const ws = new WebSocket(`${lb.replace(/^http/, 'ws')}/openenv/ws`);
  await once(ws, 'open');
  let closed: string | undefined;
  ws.on('close', (code, reason) => {
    closed = `the WebSocket closed (${code} ${reason.toString()})`;
  });
  ws.on('error', () => undefined);
  let episode: string | undefined;
  const ask = (message: object) =>
    new Promise<{ type: string; data: Record<string, unknown> }>((resolve, reject) => {
      if (closed) {
        reject(new Error(closed));
        return;
      }
      const onClose = () => reject(new Error(closed ?? 'the WebSocket closed'));
      ws.once('close', onClose);
      ws.once('message', (data) => {
        ws.off('close', onClose);
        resolve(JSON.parse(data.toString()));
      });
      ws.send(JSON.stringify(message));
    });
  const answer = async (message: object) => {
    const reply = await ask(message);
    if (reply.type === 'error') throw new Error(String(reply.data.message));
    return reply.data;
  };
  return {
    kind: 'openenv-ws',
    instance: () => undefined,
    reset: async () => {
      episode = nextEpisodeId('ws');
      const data = await answer({ type: 'reset', data: { episode_id: episode } });
      return (data.observation as { instruction: string }).instruction;
    },
    step: async (action) => (await answer({ type: 'step', data: { action } })).done as boolean,
    episodeId: () => episode,
    close: async () => {
      ws.close();
    },
  };
}

/** Plays the current episode to its end (the servers' 3-step limit ends every episode). */
async function playOut(client: Client): Promise<void> {
  for (let t = 0; t < 10; t++) if (await client.step(`search[red shoes ${t}]`)) return;
  throw new Error(`${client.kind}: the episode did not end within 10 steps`);
}

async function synthetic(): Promise<string[]> {
  const buffer = await PostgresReplayBuffer.open({
    url: database,
    encoder: new TransitionEncoder(),
  });
  try {
    return await buffer.trajectoryIds({ provenance: ['synthetic'] });
  } finally {
    await buffer.close();
  }
}

/** The buffer's synthetic trajectories once `count` are there (write-back runs behind). */
async function syntheticOnce(count: number): Promise<string[]> {
  let ids = await synthetic();
  for (let waited = 0; ids.length < count && waited < 15_000; waited += 200) {
    await sleep(200);
    ids = await synthetic();
  }
  return ids;
}

async function poolAttempts(iterations: Iterable<number>): Promise<number[][]> {
  const pool = await PostgresTaskPool.open({ url: database });
  try {
    const out: number[][] = [];
    for (const iteration of iterations) {
      out.push((await pool.groups(iteration)).map((g) => g.attempts));
    }
    return out;
  } finally {
    await pool.close();
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('three serve instances behind HAProxy, one PostgreSQL', () => {
  let iterationsSoFar = 0;

  it('hands out GRPO groups across instances, each arriving whole in the curriculum, each episode in the buffer once', async () => {
    const clients = [
      await agentgymClient(),
      await agentgymClient(),
      openenvHttpClient(),
      await openenvWsClient(),
    ];
    const rounds = 4;
    const spans: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // A trainer's group: GROUP_SIZE resets at once, over both protocols.
      const instructions = await Promise.all(clients.map((c) => c.reset()));
      expect(new Set(instructions).size, `round ${round}: ${instructions}`).toBe(1);
      spans.push(new Set(clients.map((c) => c.instance()).filter((i) => i !== undefined)).size);
      await Promise.all(clients.map(playOut));
    }
    iterationsSoFar = rounds;
    // Each group's resets were spread over instances: the sessions live on 2 or 3 of them.
    expect(Math.min(...spans)).toBeGreaterThanOrEqual(2);
    // Every group arrived whole in the one curriculum: GROUP_SIZE rewards under its iteration.
    expect(await poolAttempts(range(0, rounds))).toEqual(Array(rounds).fill([GROUP_SIZE]));
    // Every finished episode is in the buffer once, the ones clients named by name.
    const ids = await syntheticOnce(rounds * GROUP_SIZE);
    expect(ids).toHaveLength(rounds * GROUP_SIZE);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => /^(http|ws)-/.test(id)).sort()).toEqual(named.splice(0).sort());
    await Promise.all(clients.map((c) => c.close()));
  }, 120_000);

  it('SIGKILL of one instance mid-load: its clients get a clear error, the others play on, no finished episode is lost', async () => {
    const clients: Client[] = [];
    for (let i = 0; i < 3; i++) {
      clients.push(await agentgymClient(), openenvHttpClient(), await openenvWsClient());
    }
    const victim = instances[clients[0]?.instance() as number] as Instance;
    /** Episodes each client finished, and when; a client stops at its first error. */
    const finished = clients.map(() => [] as Array<{ id: string | undefined; at: number }>);
    const errors: Array<Error | undefined> = clients.map(() => undefined);
    let stop = false;
    const loops = clients.map(async (client, c) => {
      try {
        while (!stop) {
          await client.reset();
          await playOut(client);
          finished[c]?.push({ id: client.episodeId(), at: Date.now() });
        }
      } catch (error) {
        errors[c] = error as Error;
      }
    });
    const total = () => finished.reduce((n, f) => n + f.length, 0);
    while (total() < 18) await sleep(50);
    const before = new Set(await synthetic());
    const killedAt = Date.now();
    victim.process.kill('SIGKILL');
    const playedSince = (c: number) => finished[c]?.filter((e) => e.at > killedAt).length ?? 0;
    // Every client still without an error plays two more episodes; the victim's clients fail.
    for (let waited = 0; waited < 60_000; waited += 100) {
      if (clients.every((_, c) => errors[c] !== undefined || playedSince(c) >= 2)) break;
      await sleep(100);
    }
    stop = true;
    await Promise.all(loops);

    const failedHttp = clients.filter((c, i) => errors[i] && c.kind !== 'openenv-ws');
    expect(failedHttp.length).toBeGreaterThanOrEqual(1);
    for (const [i, client] of clients.entries()) {
      const error = errors[i];
      if (!error) {
        expect(playedSince(i), `${client.kind} played on`).toBeGreaterThanOrEqual(2);
        continue;
      }
      if (client.kind === 'openenv-ws') {
        expect(error.message).toMatch(/WebSocket closed/);
      } else {
        // HTTP clients know where their session lived: only the victim's fail, and say why.
        expect(client.instance()).toBe(victim.index);
        expect(error).toBeInstanceOf(RequestFailed);
        expect((error as RequestFailed).status).toBe(503);
        expect(error.message).toMatch(
          /instance holding this session .*(is down|did not answer).* Open a new session/,
        );
      }
    }
    for (const [i, client] of clients.entries()) {
      if (client.instance() !== undefined && client.instance() !== victim.index) {
        expect(errors[i], client.kind).toBeUndefined();
      }
    }
    // Nothing is lost: what the buffer held stays, and every episode a client saw finish, on the
    // instances that lived and on the victim (--durable), is in it once.
    const ids = await syntheticOnce(before.size + 1);
    await sleep(1000);
    const stored = await synthetic();
    for (const id of before) expect(stored).toContain(id);
    expect(new Set(stored).size).toBe(stored.length);
    const wanted = clients.flatMap((_, c) =>
      (finished[c] ?? []).filter((e) => e.id !== undefined).map((e) => e.id as string),
    );
    for (const id of wanted) expect(stored, id).toContain(id);
    expect(ids.length).toBeGreaterThan(0);
    // Every finished episode's reward is in the curriculum: it is filed before the last step's
    // answer goes out, the victim's included. So a client the kill cut off may also have one
    // episode filed whose last answer never reached it, and no more than one.
    const groups = await poolAttempts(range(iterationsSoFar, iterationsSoFar + 200));
    const filed = groups.flat().reduce((a, b) => a + b, 0);
    expect(filed).toBeGreaterThanOrEqual(total());
    expect(filed).toBeLessThanOrEqual(total() + errors.filter((e) => e !== undefined).length);
    iterationsSoFar += 200;
    await Promise.all(clients.map((c) => c.close()));
  }, 150_000);

  it('SIGTERM drains an instance: its episodes under way finish, it takes nothing new and exits', async () => {
    const alive = instances.filter(
      (i) => i.process.exitCode === null && i.process.signalCode === null,
    );
    expect(alive).toHaveLength(2);
    const [target, last] = alive as [Instance, Instance];
    await waitForStates((key) =>
      instances.find((i) => key.endsWith(`dreamgym${i.index}`))?.process.signalCode ? 'DOWN' : 'UP',
    );
    // Two OpenEnv HTTP clients whose sessions the balancer opened on the target.
    const onTarget: Client[] = [];
    while (onTarget.length < 2) {
      const client = openenvHttpClient();
      await client.reset();
      if (client.instance() === target.index) onTarget.push(client);
      else {
        await playOut(client);
        await client.close();
      }
    }
    await Promise.all(onTarget.map((c) => c.reset()));
    await Promise.all(onTarget.map((c) => c.step('search[red shoes]')));
    named.splice(0);
    const ids = onTarget.map((c) => c.episodeId() as string);
    target.process.kill('SIGTERM');
    const exited = once(target.process, 'exit');
    await sleep(300);
    expect((await fetch(`${target.url}/readyz`)).status).toBe(503);
    // The episodes under way finish through the balancer …
    await Promise.all(onTarget.map(playOut));
    // … and nothing new starts there: a reset is refused with the fix.
    for (const client of onTarget) {
      const refused = await client.reset().catch((error: Error) => error);
      expect(refused).toBeInstanceOf(RequestFailed);
      expect((refused as RequestFailed).status).toBe(503);
      expect((refused as Error).message).toMatch(/draining.*Open a new session/);
    }
    const [code] = (await Promise.race([exited, sleep(25_000).then(() => ['still running'])])) as [
      number | string,
    ];
    expect(code).toBe(0);
    expect(target.output()).toMatch(/SIGTERM: closing sessions…\ndraining for up to 20 s/);
    // Its finished episodes were written back before it exited.
    const stored = await synthetic();
    for (const id of ids) expect(stored.filter((s) => s === id)).toHaveLength(1);
    // New sessions now go to the one instance left.
    await waitForStates((key) => (key.endsWith(`dreamgym${last.index}`) ? 'UP' : 'DOWN'));
    for (let n = 0; n < 4; n++) {
      const client = await agentgymClient();
      expect(client.instance()).toBe(last.index);
      await client.close();
    }
  }, 120_000);
});
