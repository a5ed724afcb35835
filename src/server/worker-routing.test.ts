import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServedEnv, serveEnv } from './serve-env.ts';
import { ownerOf } from './worker-routing.ts';

/** An app that answers every request with the worker `ownerOf` names (of 3), or "any". */
const app = new Hono().all('*', async (c) => c.json((await ownerOf(c, 3)) ?? 'any'));

async function owner(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await app.request(path, {
    method,
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return response.json();
}

describe('ownerOf', () => {
  it("names the worker of the session a request is about, in each protocol's field", async () => {
    expect(await owner('POST', '/step', { env_idx: 10, action: 'search[x]' })).toBe(1);
    expect(await owner('POST', '/reset', { env_idx: 11, session_id: 4 })).toBe(2);
    expect(await owner('POST', '/close', { env_idx: 9 })).toBe(0);
    expect(await owner('GET', '/observation?env_idx=14')).toBe(2);
    expect(await owner('GET', '/state?env_idx=3')).toBe(0);
    expect(await owner('POST', '/alfworld/step', { id: 7, action: 'look' })).toBe(1);
    expect(await owner('GET', '/alfworld/detail?id=8')).toBe(2);
  });

  it("routes OpenEnv's HTTP requests by the session_id their reset answered", async () => {
    expect(await owner('POST', '/openenv/reset', {})).toBe('any');
    expect(await owner('POST', '/openenv/reset', { session_id: 5 })).toBe(2);
    expect(await owner('POST', '/openenv/step', { action: { action: 'x' }, session_id: 7 })).toBe(
      1,
    );
    expect(await owner('GET', '/openenv/state?session_id=9')).toBe(0);
    expect(await owner('POST', '/openenv/close', { session_id: 4 })).toBe(1);
  });

  it('leaves to any worker what names no session, and what is malformed', async () => {
    expect(await owner('POST', '/create')).toBe('any');
    expect(await owner('GET', '/')).toBe('any');
    expect(await owner('GET', '/openenv/ws')).toBe('any');
    expect(await owner('POST', '/step', 'not json')).toBe('any');
    expect(await owner('POST', '/step', { env_idx: -4 })).toBe('any');
    expect(await owner('POST', '/step', { env_idx: '10' })).toBe('any');
    expect(await owner('GET', '/observation?env_idx=ten')).toBe('any');
    expect(await owner('GET', '/step?env_idx=10')).toBe('any');
  });
});

describe('two workers in one process, each on its port and socket', () => {
  const servers: ServedEnv[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  /** Workers 0 and 1 of 2, as `serve --workers 2` runs them, but each on a port of its own. */
  async function twoWorkers(): Promise<[ServedEnv, ServedEnv]> {
    const dir = mkdtempSync(join(tmpdir(), 'dg-routing-'));
    const sockets = [join(dir, 'w0.sock'), join(dir, 'w1.sock')];
    for (const index of [0, 1]) {
      servers.push(
        await serveEnv({ env: 'webshop', port: 0, workers: { index, count: 2, sockets } }),
      );
    }
    return servers as [ServedEnv, ServedEnv];
  }

  const post = async (url: string, path: string) =>
    (await fetch(`${url}${path}`, { method: 'POST' })).json();

  it('/list_envs lists the sessions of every worker, whichever worker answers', async () => {
    const [first, second] = await twoWorkers();
    const ids = [
      await post(first.url, '/create'),
      await post(second.url, '/create'),
      await post(first.url, '/create'),
      await post(second.url, '/create'),
    ];
    // Ids name their worker (id % 2): two sessions in each.
    expect(ids.map((id) => (id as number) % 2)).toEqual([0, 1, 0, 1]);
    const sorted = [...(ids as number[])].sort((a, b) => a - b);
    for (const server of [first, second]) {
      const listed = await fetch(`${server.url}/list_envs`);
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual(sorted);
    }
    await fetch(`${first.url}/close`, {
      method: 'POST',
      body: JSON.stringify({ env_idx: ids[1] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(await (await fetch(`${first.url}/list_envs`)).json()).toEqual(
      sorted.filter((id) => id !== ids[1]),
    );
  });

  it('/list_envs says which worker did not answer rather than list a part', async () => {
    const [first, second] = await twoWorkers();
    await post(second.url, '/create');
    await second.close();
    servers.pop();
    const listed = await fetch(`${first.url}/list_envs`);
    expect(listed.status).toBe(502);
    expect(await listed.json()).toEqual({
      detail: expect.stringMatching(/server worker 1, which did not answer/),
    });
  });
});
