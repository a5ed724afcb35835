import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebSocketLike } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloseCode, closePayload, encodeFrame, Opcode } from './frames.ts';
import { SmallWebSocketServer } from './websocket-server.ts';

const MAX = 1024;
let http: Server;
let wss: SmallWebSocketServer;
let closes: Array<{ code: number; reason: string }>;
let port: number;
let clients: RawClient[];

/** An echo server: text comes back as `echo:<text>`, binary as is. */
beforeEach(async () => {
  wss = new SmallWebSocketServer(MAX);
  closes = [];
  clients = [];
  // Each test's connections report to its own list: earlier ones may close during a later test.
  const seen = closes;
  http = createServer();
  http.on('upgrade', (request, socket, head) =>
    wss.handleUpgrade(request, socket, head, (ws: WebSocketLike) => {
      ws.on('message', (data, isBinary) =>
        ws.send(isBinary ? (data as Buffer) : `echo:${(data as Buffer).toString()}`),
      );
      ws.on('close', (code, reason) => seen.push({ code, reason: Buffer.from(reason).toString() }));
    }),
  );
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  port = (http.address() as AddressInfo).port;
});
afterEach(async () => {
  for (const client of clients) client.socket.destroy();
  wss.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

/** A raw client: speaks the handshake, writes masked frames, reads the server's frames. */
class RawClient {
  private buffered = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  ended = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('close', () => {
      this.ended = true;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(key = randomBytes(16).toString('base64'), version = '13') {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const client = new RawClient(socket);
    clients.push(client);
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n\r\n`,
    );
    const head = await client.until((b) => {
      const end = b.indexOf('\r\n\r\n');
      return end < 0 ? undefined : { value: b.subarray(0, end).toString(), size: end + 4 };
    });
    return { client, head };
  }

  send(opcode: number, payload: Buffer | string, fin = true): void {
    const frame = encodeFrame(opcode, Buffer.from(payload), randomBytes(4));
    if (!fin) frame[0] = (frame[0] as number) & 0x7f;
    this.socket.write(frame);
  }

  /** The next frame from the server (unmasked, short or 16-bit length). */
  frame(): Promise<{ opcode: number; payload: Buffer }> {
    return this.until((b) => {
      if (b.length < 2) return undefined;
      const short = (b[1] as number) & 0x7f;
      const offset = short === 126 ? 4 : 2;
      const length = short === 126 ? b.readUInt16BE(2) : short;
      if (b.length < offset + length) return undefined;
      return {
        value: { opcode: (b[0] as number) & 0x0f, payload: b.subarray(offset, offset + length) },
        size: offset + length,
      };
    });
  }

  async text(): Promise<string> {
    return (await this.frame()).payload.toString();
  }

  private async until<T>(take: (b: Buffer) => { value: T; size: number } | undefined): Promise<T> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const got = take(this.buffered);
      if (got) {
        this.buffered = this.buffered.subarray(got.size);
        return got.value;
      }
      if (this.ended || Date.now() > deadline) throw new Error('the server sent nothing more');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
}

describe('SmallWebSocketServer', () => {
  it("answers the handshake with RFC 6455's accept key and echoes messages", async () => {
    const { client, head } = await RawClient.open('dGhlIHNhbXBsZSBub25jZQ==');
    expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols/);
    expect(head).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    client.send(Opcode.text, 'héllo');
    expect(await client.text()).toBe('echo:héllo');
    client.send(Opcode.binary, Buffer.from([1, 2, 3]));
    expect(await client.frame()).toEqual({
      opcode: Opcode.binary,
      payload: Buffer.from([1, 2, 3]),
    });
    const long = 'x'.repeat(300);
    client.send(Opcode.text, long);
    expect(await client.text()).toBe(`echo:${long}`);
  });

  it('refuses a handshake without version 13', async () => {
    const { client, head } = await RawClient.open(undefined, '8');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    client.socket.destroy();
  });

  it('joins fragmented messages, with pings answered in between', async () => {
    const { client } = await RawClient.open();
    client.send(Opcode.text, 'frag', false);
    client.send(Opcode.ping, 'are you there');
    client.send(Opcode.continuation, 'ment', false);
    client.send(Opcode.continuation, 'ed');
    expect(await client.frame()).toEqual({
      opcode: Opcode.pong,
      payload: Buffer.from('are you there'),
    });
    expect(await client.text()).toBe('echo:fragmented');
  });

  it('answers a close frame with its code and ends the connection', async () => {
    const { client } = await RawClient.open();
    client.send(Opcode.close, closePayload(CloseCode.normal, 'bye'));
    const echo = await client.frame();
    expect(echo.opcode).toBe(Opcode.close);
    expect(echo.payload.readUInt16BE(0)).toBe(CloseCode.normal);
    for (let i = 0; i < 50 && closes.length === 0; i++) await sleep(10);
    expect(closes).toEqual([{ code: CloseCode.normal, reason: 'bye' }]);
  });

  it.each([
    [
      'an unmasked frame',
      (c: RawClient) => c.socket.write(encodeFrame(Opcode.text, Buffer.from('hi'))),
      CloseCode.protocolError,
    ],
    [
      'a message over the limit',
      (c: RawClient) => c.send(Opcode.text, 'x'.repeat(MAX + 1)),
      CloseCode.tooBig,
    ],
    [
      'fragments over the limit',
      (c: RawClient) => {
        c.send(Opcode.text, 'x'.repeat(MAX), false);
        c.send(Opcode.continuation, 'x');
      },
      CloseCode.tooBig,
    ],
    [
      'text that is not UTF-8',
      (c: RawClient) => c.send(Opcode.text, Buffer.from([0xc3, 0x28])),
      CloseCode.invalidPayload,
    ],
    [
      'a continuation of nothing',
      (c: RawClient) => c.send(Opcode.continuation, 'x'),
      CloseCode.protocolError,
    ],
    ['a reserved opcode', (c: RawClient) => c.send(0x3, 'x'), CloseCode.protocolError],
  ])('closes the connection on %s', async (_name, misbehave, code) => {
    const { client } = await RawClient.open();
    misbehave(client);
    const close = await client.frame();
    expect(close.opcode).toBe(Opcode.close);
    expect(close.payload.readUInt16BE(0)).toBe(code);
    for (let i = 0; i < 100 && !client.ended; i++) await sleep(10);
    expect(client.ended).toBe(true);
  });

  it('reports 1006 when the peer vanishes without a close frame', async () => {
    const { client } = await RawClient.open();
    client.send(Opcode.text, 'hi');
    await client.text();
    client.socket.destroy();
    for (let i = 0; i < 50 && closes.length === 0; i++) await sleep(10);
    expect(closes).toEqual([{ code: CloseCode.abnormal, reason: '' }]);
  });

  it('a peer that only half-closes its side does not linger', async () => {
    const { client } = await RawClient.open();
    client.socket.end();
    for (let i = 0; i < 50 && closes.length === 0; i++) await sleep(10);
    expect(closes).toHaveLength(1);
  });

  it('close() sends 1001 to every client on shutdown', async () => {
    const { client } = await RawClient.open();
    wss.close();
    const close = await client.frame();
    expect(close.payload.readUInt16BE(0)).toBe(CloseCode.goingAway);
    expect(close.payload.subarray(2).toString()).toBe('server shutting down');
  });
});
