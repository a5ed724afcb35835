/**
 * What `dreamgym serve --workers 2` bounds for the whole server: the session cap (counted by the
 * primary, not per worker), each worker's heap, and what a primary killed outright leaves in the
 * temp folder.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ServeChildren } from './testing/serve-child.ts';

const servers = new ServeChildren();
afterEach(() => servers.kill());

/** POSTs JSON on a connection of its own, so the kernel may hand it to either worker. */
function post(url: string, body: object = {}): Promise<{ status: number; json: unknown }> {
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The worker processes of a primary (its children running `dreamgym serve`, not tsx's esbuild). */
function workersOf(pid: number): number[] {
  return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(' serve '))
    .map((line) => Number.parseInt(line.trim(), 10));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('dreamgym serve --workers 2: limits of the whole server', () => {
  it('--max-sessions caps the sessions of all workers together; each worker has a heap cap', async () => {
    const {
      url,
      output,
      process: primary,
    } = await servers.start([
      '--env',
      'webshop',
      '--port',
      '0',
      '--workers',
      '2',
      '--max-sessions',
      '4',
      '--worker-heap',
      '200',
    ]);
    expect(output()).toContain('up to 4 sessions, closed after');
    expect(output()).toContain('workers 2, heap capped at 200 MB each');
    const workers = workersOf(primary.pid as number);
    expect(workers).toHaveLength(2);
    for (const pid of workers) {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(
        '--max-old-space-size=200',
      );
    }

    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await post(`${url}/create`);
      expect(created.status).toBe(200);
      ids.push(created.json as number);
    }
    // Connections go to both workers in turn, so each holds sessions and has slots to spare
    // of its own: the server's cap still refuses the fifth, on whichever worker it lands.
    expect(new Set(ids.map((id) => id % 2))).toEqual(new Set([0, 1]));
    for (let i = 0; i < 4; i++) {
      const refused = await post(`${url}/create`);
      expect(refused.status).toBe(503);
      expect((refused.json as { detail: string }).detail).toMatch(
        /^all 4 sessions are in use \(--max-sessions 4\)/,
      );
    }
    // A session closed in one worker frees a slot for either.
    expect((await post(`${url}/close`, { env_idx: ids[0] })).status).toBe(200);
    expect((await post(`${url}/create`)).status).toBe(200);
    expect((await post(`${url}/create`)).status).toBe(503);
    primary.kill('SIGTERM');
    const [code] = await once(primary, 'exit');
    expect(code).toBe(0);
  }, 120_000);

  it('a primary killed outright leaves no worker and no socket behind', async () => {
    const { process: primary } = await servers.start([
      '--env',
      'webshop',
      '--port',
      '0',
      '--workers',
      '2',
    ]);
    const pid = primary.pid as number;
    const socketDirs = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith(`dreamgym-serve-${pid}-`));
    expect(socketDirs()).toHaveLength(1);
    const workers = workersOf(pid);
    expect(workers).toHaveLength(2);
    primary.kill('SIGKILL');
    await once(primary, 'exit');
    for (let waited = 0; workers.some(alive); waited += 50) {
      if (waited > 20_000) throw new Error('the workers outlived their primary by 20 s');
      await sleep(50);
    }
    expect(socketDirs()).toEqual([]);
  }, 120_000);
});
