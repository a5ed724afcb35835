/**
 * The WebSocket transport against misbehaving loopback servers: silent, dropping, refusing,
 * speaking something else. Every failure is a clear error within its time limit, never a hang.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { OpenEnvCapacityError, OpenEnvConnectionError, OpenEnvProtocolError } from './errors.ts';
import { DEFAULT_CLIENT_OPTIONS } from './transport.ts';
import { WebSocketTransport } from './ws-transport.ts';

let server: WebSocketServer | undefined;
afterEach(async () => {
  for (const client of server?.clients ?? []) client.terminate();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A WebSocket server at `/ws` on a free loopback port; `onConnection` plays the server. */
async function serve(onConnection: (socket: WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
  server = wss;
  wss.on('connection', onConnection);
  await new Promise((resolve) => wss.once('listening', resolve));
  const { port } = wss.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

const transport = (root: string, options: Partial<typeof DEFAULT_CLIENT_OPTIONS> = {}) =>
  new WebSocketTransport(root, 'test server', { ...DEFAULT_CLIENT_OPTIONS, ...options });

describe('OpenEnv WebSocket transport', () => {
  it('speaks OpenEnv: one {type, data} message, one answer', async () => {
    const seen: unknown[] = [];
    const root = await serve((socket) =>
      socket.on('message', (raw) => {
        const message = JSON.parse(raw.toString());
        seen.push(message);
        if (message.type === 'close') return socket.close();
        const data =
          message.type === 'state'
            ? { episode_id: 'e1', step_count: 0 }
            : { observation: { text: 'hi' }, reward: null, done: false };
        socket.send(
          JSON.stringify({ type: message.type === 'state' ? 'state' : 'observation', data }),
        );
      }),
    );
    const line = transport(root);
    expect(line.url).toBe(`${root.replace('http', 'ws')}/ws`);
    expect(await line.reset({ seed: 3 })).toEqual({
      observation: { text: 'hi' },
      reward: null,
      done: false,
    });
    expect(await line.step({ message: 'go' })).toMatchObject({ observation: { text: 'hi' } });
    expect(await line.state()).toEqual({ episode_id: 'e1', step_count: 0 });
    await line.close();
    expect(seen).toEqual([
      { type: 'reset', data: { seed: 3 } },
      { type: 'step', data: { message: 'go' } },
      { type: 'state' },
      { type: 'close' },
    ]);
  });

  it('a server that never answers is a connection error after the message time limit', async () => {
    const root = await serve(() => {});
    const line = transport(root, { messageTimeoutMs: 150 });
    const started = Date.now();
    await expect(line.reset({})).rejects.toThrow(
      'test server: reset over WebSocket got no answer within 150 ms; the connection was given up. The server may be busy or stuck',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    await line.close();
  });

  it('a connection dropped mid-request fails that request at once', async () => {
    const root = await serve((socket) => socket.on('message', () => socket.terminate()));
    const line = transport(root);
    const error = await line.reset({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenEnvConnectionError);
    expect((error as Error).message).toMatch(
      /lost the connection to the server \(WebSocket closed with code 1006\)/,
    );
    // A step on the lost session fails too; a reset opens a new one (which drops again here).
    await expect(line.step({ a: 1 })).rejects.toThrow(/lost the connection/);
    await expect(line.reset({})).rejects.toThrow(/lost the connection/);
    await line.close();
  });

  it("a full server's refusal, sent before any request, is the first request's answer", async () => {
    const root = await serve((socket) => {
      socket.send(
        JSON.stringify({
          type: 'error',
          data: {
            message: 'Server at capacity: 2/2',
            code: 'CAPACITY_REACHED',
            active_sessions: 2,
            max_sessions: 2,
          },
        }),
      );
      socket.close();
    });
    const line = transport(root);
    const error = await line.reset({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenEnvCapacityError);
    expect(error).toMatchObject({ activeSessions: 2, maxSessions: 2 });
    expect((error as Error).message).toContain('no free session (2 of 2 in use)');
    await line.close();
  });

  it('a server that speaks something else is a protocol error', async () => {
    const root = await serve((socket) =>
      socket.on('message', () => socket.send('<html>hello</html>')),
    );
    const line = transport(root);
    await expect(line.reset({})).rejects.toBeInstanceOf(OpenEnvProtocolError);
    await line.close();
  });

  it('quotes a garbage message escaped and clipped, never raw', async () => {
    const garbage = Buffer.from(
      Uint8Array.from(
        { length: 65_536 },
        (_, i) => [0x1b, 0x5b, 0x32, 0x4a, 0x07, 0xff][i % 6] ?? 0,
      ),
    );
    const root = await serve((socket) => socket.on('message', () => socket.send(garbage)));
    const line = transport(root);
    const message = ((await line.reset({}).catch((e: unknown) => e)) as Error).message;
    expect(message).toMatch(
      /a message that is not OpenEnv's: "\\x1b\[2J\\x07\\ufffd.*…" \(65,536 characters\)\. Check/,
    );
    expect(message).not.toMatch(/\p{Cc}/u);
    expect(message.length).toBeLessThan(700);
    await line.close();
  });

  it('no server at the URL is a connection error naming it', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    await expect(transport(`http://127.0.0.1:${port}`).reset({})).rejects.toThrow(
      `test server: reset over WebSocket could not connect to ws://127.0.0.1:${port}/ws (ECONNREFUSED). Check that the OpenEnv server is running`,
    );
  });

  it('close() does not wait past its limit for a server that ignores it', async () => {
    const root = await serve((socket) =>
      socket.on('message', (raw) => {
        if (JSON.parse(raw.toString()).type === 'reset') {
          socket.send(
            JSON.stringify({ type: 'observation', data: { observation: {}, done: false } }),
          );
        }
      }),
    );
    const line = transport(root);
    await line.reset({});
    const started = Date.now();
    await line.close();
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
