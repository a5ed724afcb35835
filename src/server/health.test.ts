import { describe, expect, it } from 'vitest';
import { ServerHealth } from './health.ts';
import { parseInstance, processSlot } from './instance-slot.ts';
import { call, registryServer } from './testing/fixtures.ts';

/** A webshop server with a health state, answering in process. */
function served(health = new ServerHealth(), overrides = {}) {
  const server = registryServer('webshop', { health, ...overrides }, { maxSteps: 3 });
  return { server, health, app: server.app };
}

describe('ServerHealth', () => {
  it('is live at once, ready once marked, not ready while a check fails, and needs no token', async () => {
    let pool = 'up';
    const health = new ServerHealth({
      checks: {
        curriculum: async () => {
          if (pool !== 'up') throw new Error('connection refused');
        },
      },
      checkTimeoutMs: 200,
    });
    const { app, server } = served(health, { token: 'sesame' });
    expect(await call(app, 'GET', '/healthz')).toEqual({
      status: 200,
      json: { status: 'live', state: 'starting' },
    });
    expect((await call(app, 'GET', '/readyz')).status).toBe(503);
    health.markReady();
    expect(await call(app, 'GET', '/readyz')).toEqual({ status: 200, json: { status: 'ready' } });
    pool = 'down';
    expect(await call(app, 'GET', '/readyz')).toEqual({
      status: 503,
      json: { status: 'unavailable', failed: { curriculum: 'connection refused' } },
    });
    expect((await call(app, 'POST', '/create')).status).toBe(401); // the rest still needs it
    await server.close();
  });

  it('a check that hangs fails readiness instead of holding the probe', async () => {
    const health = new ServerHealth({
      checks: { buffer: () => new Promise(() => {}) },
      checkTimeoutMs: 50,
    });
    health.markReady();
    const { app, server } = served(health);
    expect(await call(app, 'GET', '/readyz')).toEqual({
      status: 503,
      json: { status: 'unavailable', failed: { buffer: 'no answer within 50 ms' } },
    });
    await server.close();
  });

  it('drains: new sessions and episodes refused with the fix, open episodes finish, then their sessions close', async () => {
    const { app, server, health } = served();
    health.markReady();
    const open = async () => (await call(app, 'POST', '/create')).json as number;
    const [busy, between, fresh] = [await open(), await open(), await open()];
    await call(app, 'POST', '/reset', { env_idx: busy, session_id: 0 });
    await call(app, 'POST', '/reset', { env_idx: between, session_id: 1 });
    await call(app, 'POST', '/step', { env_idx: between, action: 'search[x]' });
    await call(app, 'POST', '/step', { env_idx: between, action: 'search[y]' });
    const ended = await call(app, 'POST', '/step', { env_idx: between, action: 'search[z]' });
    expect((ended.json as { done: boolean }).done).toBe(true); // the 3-step limit
    const draining = health.drain(server.sessions, 5000);

    expect((await call(app, 'GET', '/readyz')).status).toBe(503);
    expect((await call(app, 'GET', '/healthz')).json).toEqual({
      status: 'live',
      state: 'draining',
    });
    for (const [method, path, body] of [
      ['POST', '/create', {}],
      ['POST', '/reset', { env_idx: busy }],
      ['POST', '/openenv/reset', {}],
      ['POST', '/alfworld/create', {}],
      ['GET', '/openenv/ws', undefined],
    ] as const) {
      const refused = await call(app, method, path, body);
      expect(refused.status, path).toBe(503);
      expect((refused.json as { detail: string }).detail).toMatch(
        /draining.*Open a new session: the load balancer sends it to another instance/,
      );
    }
    // Sessions between episodes (or before their first) close at once; the one mid-episode plays on.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(server.sessions.ids()).toEqual([busy]);
    expect(server.sessions.find(fresh)).toBeUndefined();
    const step = await call(app, 'POST', '/step', { env_idx: busy, action: 'search[x]' });
    expect(step.status).toBe(200);
    await call(app, 'POST', '/step', { env_idx: busy, action: 'search[y]' });
    await call(app, 'POST', '/step', { env_idx: busy, action: 'search[z]' });
    expect(await draining).toBe(0);
    expect(server.sessions.size).toBe(0);
    await server.close();
  });

  it('a drain that runs out of time says how many sessions are still mid-episode', async () => {
    const { app, server, health } = served();
    const id = (await call(app, 'POST', '/create')).json as number;
    await call(app, 'POST', '/reset', { env_idx: id, session_id: 0 });
    expect(await health.drain(server.sessions, 150)).toBe(1);
    await server.close();
    expect(server.sessions.stats.episodesAbandoned).toBe(1);
  });

  it('as instance I of N, makes ids I mod N and tells a request for another instance’s session where it belongs', async () => {
    const instance = parseInstance('1/3');
    const health = new ServerHealth({ instance });
    const { app, server } = served(health, { workers: processSlot(instance, undefined) });
    const ids = await Promise.all(
      Array.from({ length: 20 }, async () => (await call(app, 'POST', '/create')).json as number),
    );
    expect(ids.every((id) => id % 3 === 1)).toBe(true);
    const foreign = (ids[0] as number) + 1;
    for (const [method, path, body] of [
      ['POST', '/step', { env_idx: foreign, action: 'x' }],
      ['GET', `/observation?env_idx=${foreign}`, undefined],
      ['POST', '/openenv/step', { session_id: foreign, action: { action: 'x' } }],
      ['POST', '/alfworld/reset', { id: foreign }],
    ] as const) {
      const answer = await call(app, method, path, body);
      expect(answer.status, path).toBe(404);
      expect((answer.json as { detail: string }).detail).toMatch(
        /not on this server instance \(1 of 3\): its id says instance 2 \(id mod 3\)/,
      );
    }
    const own = await call(app, 'POST', '/reset', { env_idx: ids[0], session_id: 0 });
    expect(own.status).toBe(200);
    await server.close();
  });

  it('refuses an instance that is not I/N with 0 ≤ I < N, naming the flag', () => {
    for (const text of ['3/3', '1', 'a/b', '-1/2', '0/0']) {
      expect(() => parseInstance(text), text).toThrow(/--instance is I\/N/);
    }
    expect(parseInstance(' 2/5 ')).toEqual({ index: 2, count: 5 });
  });
});

describe('processSlot', () => {
  it('splits an instance’s slot between its workers, each keeping the instance’s remainder', () => {
    const sockets = ['/s/w0', '/s/w1'];
    const slots = [0, 1].map((index) =>
      processSlot({ index: 2, count: 3 }, { index, count: 2, sockets }),
    );
    expect(slots.map((s) => [s?.index, s?.count])).toEqual([
      [2, 6],
      [5, 6],
    ]);
    expect(slots.every((s) => (s?.index ?? 0) % 3 === 2)).toBe(true);
    expect(slots[0]?.sockets[2]).toBe('/s/w0');
    expect(slots[0]?.sockets[5]).toBe('/s/w1');
    expect(processSlot(undefined, { index: 1, count: 2, sockets })).toEqual({
      index: 1,
      count: 2,
      sockets,
    });
    expect(processSlot({ index: 0, count: 1 }, undefined)).toBeUndefined();
  });
});
