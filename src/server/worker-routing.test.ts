import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
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
