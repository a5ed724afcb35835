import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';
import { CHILD_START_MS, CHILD_TIMEOUT_MS, spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { ServeChildren } from './testing/serve-child.ts';

const bin = join(import.meta.dirname, '../../scripts/dreamgym-dev.js');
const servers = new ServeChildren();
afterEach(() => servers.kill());
const startServe = (args: string[]) => servers.start(args, CHILD_START_MS);

async function post(url: string, body?: object): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
  });
  return response.json();
}

// Most tests here start a server child; the refusals before listening run in process.
describe('dreamgym serve', { timeout: spawningTestTimeout(2) }, () => {
  it('serves until SIGTERM, then closes and finishes the record file', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'dreamgym-serve-cli-')), 'served.jsonl');
    const { url, output, process } = await startServe([
      '--env',
      'webshop',
      '--port',
      '0',
      '--max-steps',
      '2',
      '--record',
      record,
    ]);
    expect(output()).toContain(`OpenEnv            ${url}/openenv`);
    const id = (await post(`${url}/create`)) as number;
    await post(`${url}/reset`, { env_idx: id, session_id: 0 });
    await post(`${url}/step`, { env_idx: id, action: 'search[mug]' });
    const last = (await post(`${url}/step`, { env_idx: id, action: 'click[back to search]' })) as {
      done: boolean;
    };
    expect(last.done).toBe(true);
    process.kill('SIGTERM');
    const [code] = await once(process, 'exit');
    expect(code).toBe(0);
    expect(output()).toMatch(/served 1 sessions, 1 finished episodes, 2 steps/);
    expect(output()).toContain(`wrote 1 episodes to ${record}`);
    const [trajectory] = await readTrajectories(record);
    expect(trajectory).toMatchObject({ provenance: 'real-online', env: 'webshop' });
    expect(trajectory?.steps.at(-1)?.truncated).toBe(true);
  });

  it('serving a synthetic env, exits on SIGINT with the record file and the buffer closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-synthetic-'));
    const db = join(dir, 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path: db });
    await buffer.add(await webshopTrajectories(30));
    await buffer.close();
    const record = join(dir, 'served.jsonl');
    const { url, output, process } = await startServe([
      '--env',
      'synthetic:webshop',
      '--db',
      db,
      '--port',
      '0',
      '--max-steps',
      '2',
      '--record',
      record,
    ]);
    const id = (await post(`${url}/create`)) as number;
    await post(`${url}/reset`, { env_idx: id, session_id: 0 });
    await post(`${url}/step`, { env_idx: id, action: 'search[mug]' });
    const last = (await post(`${url}/step`, { env_idx: id, action: 'click[back to search]' })) as {
      done: boolean;
    };
    expect(last.done).toBe(true);
    process.kill('SIGINT');
    // Before the fix the encoder worker kept the process up until a second signal.
    const exit = once(process, 'exit');
    const code = await Promise.race([exit.then(([c]) => c), sleep(15_000).then(() => 'alive')]);
    expect({ code, output: output() }).toMatchObject({ code: 0 }); // the output says why if not
    expect(output()).toContain(`wrote 1 episodes to ${record}`);
    expect(await readTrajectories(record)).toHaveLength(1);
    const after = SqliteReplayBuffer.open({ path: db, create: false });
    expect((await after.stats()).byEnv.webshop?.synthetic?.trajectories).toBe(1);
    expect(after.integrityCheck()).toBe('ok');
    await after.close();
  });

  it('refuses a synthetic env on a buffer path that does not exist, creating nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-typo-'));
    const db = join(dir, 'typo/path.db');
    const run = await runCliInProcess([
      'serve',
      '--env',
      'synthetic:webshop',
      '--db',
      db,
      '--port',
      '0',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${db}: no replay buffer there`);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('fails with the fix when the port is taken', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const run = await runCliInProcess(['serve', '--env', 'webshop', '--port', String(port)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: port ${port} on 127.0.0.1 is in use: pick another with --port, or stop what listens there.`,
      );
    } finally {
      blocker.close();
    }
  });

  // In children: `--workers 2` forks the running script, which in this process is vitest's.
  it('refuses a --record that is a directory at start, alone or with workers', {
    timeout: spawningTestTimeout(2),
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-record-'));
    for (const workers of ['1', '2']) {
      const run = spawnSync(
        process.execPath,
        [bin, 'serve', '--env', 'webshop', '--port', '0', '--workers', workers, '--record', dir],
        { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`error: ${dir} is a directory; give a file`);
      expect(run.stdout).not.toContain('Ctrl-C to stop');
      expect(existsSync(`${dir}.partial`)).toBe(false);
    }
  });

  it('names a wrong env before listening', async () => {
    const run = await runCliInProcess(['serve', '--env', 'webshopp', '--port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown env "webshopp"; available: webshop, household/);
  });
});
