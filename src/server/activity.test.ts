/**
 * Issue 22, item 3: any request on a session keeps it alive, reads included. A client that only
 * polls state between its (rare) steps must not be reaped at the idle timeout.
 */
import { describe, expect, it } from 'vitest';
import { call, registryServer } from './testing/fixtures.ts';

/** A webshop server on a fake clock, idle timeout 1 s, with one session reset. */
async function polledServer() {
  let now = 0;
  const server = registryServer('webshop', { clock: () => now, idleTimeoutMs: 1000 });
  const agentgym = (await call(server.app, 'POST', '/create')).json as number;
  await call(server.app, 'POST', '/reset', { env_idx: agentgym, session_id: 0 });
  const alfworld = ((await call(server.app, 'POST', '/alfworld/create')).json as { id: number }).id;
  await call(server.app, 'POST', '/alfworld/reset', { id: alfworld, game: 0, world_type: 'Text' });
  const openenv = (
    (await call(server.app, 'POST', '/openenv/reset', {})).json as { session_id: number }
  ).session_id;
  return { server, agentgym, alfworld, openenv, advance: (ms: number) => (now += ms) };
}

describe('session activity', () => {
  it('GET requests on a session keep it from being reaped, on every protocol', async () => {
    const { server, agentgym, alfworld, openenv, advance } = await polledServer();
    const gets = [
      `/observation?env_idx=${agentgym}`,
      `/available_actions?env_idx=${agentgym}`,
      `/state?env_idx=${agentgym}`,
      `/instruction_text?env_idx=${agentgym}`,
      `/alfworld/observation?id=${alfworld}`,
      `/alfworld/available_actions?id=${alfworld}`,
      `/alfworld/detail?id=${alfworld}`,
      `/openenv/state?session_id=${openenv}`,
    ];
    const before = server.sessions.ids().sort();
    expect(before).toHaveLength(3);
    // Ten polling rounds, 600 ms apart: 6 s in all, six times the idle timeout.
    for (let round = 0; round < 10; round++) {
      advance(600);
      for (const path of gets) expect((await call(server.app, 'GET', path)).status).toBe(200);
      expect(await server.sessions.reapIdle()).toEqual([]);
    }
    expect(server.sessions.ids().sort()).toEqual(before);
    // Without requests they go, as before.
    advance(1001);
    expect((await server.sessions.reapIdle()).sort()).toEqual(before);
    await server.close();
  });
});
