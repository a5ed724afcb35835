import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { envEntry } from '../envs/registry.ts';
import type { EnvServerOptions } from './app.ts';
import { type ListeningServer, listen } from './listen.ts';
import type { SessionStore } from './sessions.ts';
import { registryServer } from './testing/fixtures.ts';
import { WsChild } from './testing/ws-child.ts';

const trainTasks = envEntry('webshop').tasks({}).tasks('train');
let running: ListeningServer | undefined;
const children: WsChild[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill();
  await running?.close();
  running = undefined;
});

/** A webshop server on a free loopback port; the OpenEnv WebSocket URL and the sessions. */
async function serve(overrides: Partial<EnvServerOptions> = {}) {
  const server = registryServer('webshop', overrides);
  running = await listen(server, { port: 0 });
  return { url: `${running.url.replace(/^http/, 'ws')}/openenv/ws`, sessions: server.sessions };
}

function client(url: string, token?: string): WsChild {
  const child = new WsChild(url, token);
  children.push(child);
  return child;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function sessionsDrain(sessions: SessionStore): Promise<void> {
  await until(() => sessions.size === 0, 'the session to close');
}

describe("OpenEnv's WebSocket session at /openenv/ws, over a loopback socket", () => {
  it('answers reset, step, state and close as OpenEnv does, each connection with its own session', async () => {
    const { url, sessions } = await serve();
    const ws = client(url);
    expect(await ws.next()).toEqual({ open: true });
    ws.send({ type: 'reset', data: { task_index: 1, episode_id: 'ws-episode' } });
    const reset = await ws.message();
    expect(reset.type).toBe('observation');
    expect(reset.data).toMatchObject({
      observation: {
        instruction: (trainTasks[1] as Task).instruction,
        actions: ['search[<query>]'],
      },
      reward: null,
      done: false,
      metadata: { episode_id: 'ws-episode' },
    });
    ws.send({ type: 'step', data: { action: 'search[dress]' } });
    const step = await ws.message();
    expect(step).toMatchObject({
      type: 'observation',
      data: { reward: 0, done: false, metadata: { terminated: false, truncated: false } },
    });
    ws.send({ type: 'state' });
    expect(await ws.message()).toMatchObject({
      type: 'state',
      data: { episode_id: 'ws-episode', step_count: 1, task_id: (trainTasks[1] as Task).id },
    });
    expect(sessions.size).toBe(1);
    ws.send({ type: 'close' });
    expect(await ws.next()).toEqual({ close: { code: 1000, reason: 'closed by the client' } });
    await sessionsDrain(sessions);
  });

  it('answers malformed messages with OpenEnv error codes and keeps the session', async () => {
    const { url } = await serve();
    const ws = client(url);
    await ws.next();
    ws.send('not json');
    expect(await ws.message()).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
    ws.send({ type: 'mcp', data: {} });
    expect(await ws.message()).toMatchObject({
      type: 'error',
      data: {
        code: 'UNKNOWN_TYPE',
        message: expect.stringMatching(/send one of reset, step, state, close/),
      },
    });
    ws.send({ type: 'step', data: { command: 'x' } });
    expect(await ws.message()).toMatchObject({
      type: 'error',
      data: {
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^message\.data\.action: /),
      },
    });
    ws.send({ type: 'reset', data: { seed: 1, difficulty: 'hard', level: 2 } });
    expect(await ws.message()).toMatchObject({
      type: 'error',
      data: {
        code: 'VALIDATION_ERROR',
        message:
          'message.data: unknown reset keys "difficulty", "level"; this server\'s reset takes seed, episode_id, task_index, from.',
      },
    });
    ws.send({ type: 'step', data: { action: 'search[x]' } });
    expect(await ws.message()).toMatchObject({
      type: 'error',
      data: { code: 'EXECUTION_ERROR', message: expect.stringMatching(/no episode yet: reset it/) },
    });
    ws.send({ type: 'reset' });
    expect((await ws.message()).type).toBe('observation');
    ws.send({ type: 'step', data: { action: 'click[nowhere]' } });
    expect(await ws.message()).toMatchObject({
      data: { reward: 0, metadata: { invalidAction: expect.stringMatching(/no \[nowhere\]/) } },
    });
  });

  it('answers pipelined messages in order', async () => {
    const { url } = await serve();
    const ws = client(url);
    await ws.next();
    ws.send({ type: 'reset', data: { task_index: 0 } });
    for (const query of ['mug', 'lamp', 'sock']) {
      ws.send({ type: 'step', data: { action: `search[${query}]` } });
      ws.send({ type: 'step', data: { action: 'click[back to search]' } });
    }
    ws.send({ type: 'state' });
    const types = [];
    for (let i = 0; i < 8; i++) types.push((await ws.message()).type);
    expect(types).toEqual([...Array(7).fill('observation'), 'state']);
  });

  it('a full server answers CAPACITY_REACHED and closes with 1013', async () => {
    const { url } = await serve({ maxSessions: 1 });
    const first = client(url);
    await first.next();
    first.send({ type: 'reset' });
    await first.message();
    const second = client(url);
    expect(await second.next()).toEqual({ open: true });
    expect(await second.message()).toMatchObject({
      type: 'error',
      data: {
        code: 'CAPACITY_REACHED',
        active_sessions: 1,
        max_sessions: 1,
        message: expect.stringMatching(/--max-sessions 1/),
      },
    });
    expect(await second.next()).toEqual({ close: { code: 1013, reason: 'server full' } });
  });

  it('closes a connection that sends a message over the body limit with 1009, freeing its session', async () => {
    const { url, sessions } = await serve({ maxBodyBytes: 1_000 });
    const ws = client(url);
    await ws.next();
    ws.send({ type: 'reset' });
    await ws.message();
    ws.send({ type: 'step', data: { action: `search[${'x'.repeat(2_000)}]` } });
    expect(await ws.next()).toMatchObject({ close: { code: 1009 } });
    await sessionsDrain(sessions);
  });

  it('says 1001 to every client when the server shuts down', async () => {
    const { url } = await serve();
    const a = client(url);
    const b = client(url);
    await a.next();
    await b.next();
    await running?.close();
    running = undefined;
    const going = { close: { code: 1001, reason: 'server shutting down' } };
    expect([await a.next(), await b.next()]).toEqual([going, going]);
  });

  it('frees the session of a client that vanishes without closing', async () => {
    const { url, sessions } = await serve();
    const ws = client(url);
    await ws.next();
    ws.send({ type: 'reset' });
    await ws.message();
    expect(sessions.size).toBe(1);
    ws.kill();
    await sessionsDrain(sessions);
  });

  it('closes the connection of a session reaped when idle, saying why', async () => {
    const { url, sessions } = await serve({ idleTimeoutMs: 200 });
    const ws = client(url);
    await ws.next();
    expect(await ws.next()).toEqual({
      close: { code: 1000, reason: 'session closed: idle for over 0.2 s' },
    });
    expect(sessions.size).toBe(0);
  });

  it('with a token, refuses the upgrade without it and accepts it with it', async () => {
    const { url, sessions } = await serve({ token: 'tok-123' });
    const refused = client(url);
    const event = await refused.next();
    expect('open' in event).toBe(false);
    expect(sessions.size).toBe(0);
    const allowed = client(url, 'tok-123');
    expect(await allowed.next()).toEqual({ open: true });
    allowed.send({ type: 'reset' });
    expect((await allowed.message()).type).toBe('observation');
  });
});
