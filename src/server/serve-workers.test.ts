/**
 * `dreamgym serve --workers 2` as a child process over real HTTP: sessions spread over both
 * workers, requests sent on a new connection each (as AgentGym's Python clients do) so most reach
 * the worker that does not hold their session and are forwarded, and both workers write their
 * episodes back to one SQLite buffer at once.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_TIMEOUT_MS, spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { ServeChildren } from './testing/serve-child.ts';

const bin = join(import.meta.dirname, '../../scripts/dreamgym-dev.js');
const servers = new ServeChildren();
afterEach(() => servers.kill());
const startServe = (args: string[]) => servers.start(args);

/** POSTs JSON on a connection of its own (no keep-alive), as Python's `requests.post` does. */
function post<T>(url: string, body: object = {}): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
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

/**
 * A buffer of 300 offline episodes: past the 1,000 transitions from which a served synthetic env
 * retrieves through ANN indexes, which every worker keeps and saves beside the database.
 */
async function syntheticBuffer(): Promise<{ dir: string; db: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-workers-'));
  const db = join(dir, 'buffer.db');
  const buffer = SqliteReplayBuffer.open({ path: db });
  await buffer.add(await webshopTrajectories(300));
  await buffer.close();
  return { dir, db };
}

describe('dreamgym serve --workers', () => {
  it('two workers play concurrent sessions to the end, losing and duplicating no episode', async () => {
    const { dir, db } = await syntheticBuffer();
    const record = join(dir, 'served.jsonl');
    const { url, output, process } = await startServe([
      '--env',
      'synthetic:webshop',
      '--db',
      db,
      '--port',
      '0',
      '--workers',
      '2',
      '--max-steps',
      '3',
      '--record',
      record,
      // SIGTERM closes at once (no drain): the OpenEnv episode left open below is not waited for.
      '--drain-timeout',
      '0',
    ]);
    expect(output()).toContain('  workers 2');
    const sessions = 16;
    const episodesEach = 3;
    const ids: number[] = [];
    let finished = 0;
    let steps = 0;
    await Promise.all(
      Array.from({ length: sessions }, async (_, k) => {
        const id = await post<number>(`${url}/create`);
        ids.push(id);
        for (let episode = 0; episode < episodesEach; episode++) {
          await post(`${url}/reset`, { env_idx: id, session_id: (k * 7 + episode) % 50 });
          for (let done = false; !done; ) {
            const step = await post<{ done: boolean }>(`${url}/step`, {
              env_idx: id,
              action: steps % 2 === 0 ? 'search[red shoes]' : 'click[back to search]',
            });
            steps++;
            done = step.done;
          }
          finished++;
        }
        await post(`${url}/close`, { env_idx: id });
      }),
    );
    // Session ids name their worker (id % 2): both served some.
    expect(new Set(ids.map((id) => id % 2))).toEqual(new Set([0, 1]));
    // An OpenEnv HTTP episode's session is named in its reset's reply: its step finds the worker
    // that holds it however the connections were spread.
    const { session_id } = (await post(`${url}/openenv/reset`, {})) as { session_id: number };
    await post(`${url}/openenv/step`, { action: { action: 'search[mug]' }, session_id });

    process.kill('SIGTERM');
    const [code] = await once(process, 'exit');
    expect({ code, output: output() }).toMatchObject({ code: 0 });
    expect(output()).toContain(
      `served ${sessions + 1} sessions, ${finished} finished episodes, ${steps + 1} steps`,
    );
    // The OpenEnv HTTP episode was still open at SIGTERM: it is recorded as abandoned too.
    expect(output()).toContain(`wrote ${finished + 1} episodes to ${record}`);
    const recorded = await readTrajectories(record);
    expect(recorded).toHaveLength(finished + 1);
    expect(recorded.filter((t) => t.steps.at(-1)?.info?.truncatedBy === 'abandoned')).toHaveLength(
      1,
    );
    const buffer = SqliteReplayBuffer.open({ path: db, create: false });
    const stored: string[] = [];
    for await (const t of buffer.trajectories({ provenance: 'synthetic' })) stored.push(t.id);
    expect(stored).toHaveLength(finished + 1);
    expect(new Set(stored).size).toBe(finished + 1);
    expect(new Set(stored)).toEqual(new Set(recorded.map((t) => t.id)));
    expect(buffer.integrityCheck()).toBe('ok');
    await buffer.close();
    // Both workers saved their index at close, each through a temporary file of its own.
    expect(readdirSync(dir)).toContain('buffer.db.real.usearch');
    expect(readdirSync(dir).filter((file) => file.includes('partial'))).toEqual([]);
  }, 60_000);

  it('runs one curriculum in the primary: groups of task-less resets span workers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-workers-'));
    const tasks = join(dir, 'tasks.db');
    const { url, process } = await startServe([
      '--env',
      'webshop',
      '--port',
      '0',
      '--workers',
      '2',
      '--max-steps',
      '1',
      '--curriculum',
      'variance',
      '--tasks',
      tasks,
      '--group-size',
      '2',
      '--batch-tasks',
      '2',
    ]);
    // A session in each worker (ids name their worker: id % 2).
    const sessionOf = new Map<number, number>();
    for (let i = 0; sessionOf.size < 2 && i < 20; i++) {
      const id = await post<number>(`${url}/create`);
      if (!sessionOf.has(id % 2)) sessionOf.set(id % 2, id);
    }
    expect(sessionOf.size).toBe(2);
    // Whichever worker a request reaches (a connection each), it lists both workers' sessions.
    const created = [...sessionOf.values()].sort((a, b) => a - b);
    for (let i = 0; i < 4; i++) {
      const listed = await fetch(`${url}/list_envs`, { headers: { connection: 'close' } });
      expect(((await listed.json()) as number[]).filter((id) => created.includes(id))).toEqual(
        created,
      );
    }
    const instructions: string[] = [];
    for (const worker of [0, 1, 0]) {
      const id = sessionOf.get(worker) as number;
      const [page] = await post<[string]>(`${url}/reset`, { env_idx: id });
      instructions.push(/Instruction:\s*\n?(.*)/.exec(page)?.[1] ?? page);
      const step = await post<{ done: boolean }>(`${url}/step`, {
        env_idx: id,
        action: 'search[anything]',
      });
      expect(step.done).toBe(true);
    }
    expect(instructions[1]).toBe(instructions[0]);
    expect(instructions[2]).not.toBe(instructions[0]);
    process.kill('SIGTERM');
    const [code] = await once(process, 'exit');
    expect(code).toBe(0);
    const pool = SqliteTaskPool.open({ path: tasks });
    expect((await pool.groups(0)).map((g) => g.attempts).sort()).toEqual([1, 2]);
    await pool.close();
  }, 60_000);

  it('stops with exit code 1 and says so when a worker dies', async () => {
    const { url, output, process } = await startServe([
      '--env',
      'webshop',
      '--port',
      '0',
      '--workers',
      '2',
    ]);
    const workers = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    expect(workers).toHaveLength(2);
    globalThis.process.kill(workers[0] as number, 'SIGKILL');
    const [code] = await once(process, 'exit');
    expect(code).toBe(1);
    expect(output()).toMatch(
      /server worker \d \(pid \d+\) killed by SIGKILL; its sessions are lost/,
    );
    expect(output()).toContain('Stopping the server.');
    await expect(fetch(url)).rejects.toThrow();
  }, 60_000);

  it("fails with a worker's error, and the fix, when the port is taken", {
    timeout: spawningTestTimeout(3),
  }, async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const run = spawnSync(
        process.execPath,
        [bin, 'serve', '--env', 'webshop', '--port', String(port), '--workers', '2'],
        { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`error: port ${port} on 127.0.0.1 is in use`);
      expect(run.stdout).not.toContain('Ctrl-C to stop');
    } finally {
      blocker.close();
    }
  });

  it('refuses a worker count below 1', { timeout: spawningTestTimeout(1) }, () => {
    const run = spawnSync(process.execPath, [bin, 'serve', '--env', 'webshop', '--workers', '0'], {
      encoding: 'utf8',
      timeout: CHILD_TIMEOUT_MS,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("option '--workers <n>' argument '0' is invalid");
  });
});
