import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketLike, WebSocketServerLike } from '@hono/node-server';
import {
  CloseCode,
  closePayload,
  encodeFrame,
  FrameError,
  Opcode,
  parseClosePayload,
  readFrame,
} from './frames.ts';

/** RFC 6455 §1.3: the GUID the handshake hashes with the client's key. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** How long a closing connection waits for the peer's close frame before dropping the socket. */
const CLOSE_WAIT_MS = 1000;

const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/**
 * A small server-side WebSocket (RFC 6455) for `@hono/node-server`'s `websocket.server` option,
 * so that hono's `upgradeWebSocket` works on Node without the `ws` package, which this project
 * does not depend on. It speaks what JSON session protocols need: text and binary messages
 * (fragmented or not), ping/pong, the close handshake, a message-size limit, UTF-8 checks; no
 * compression and no subprotocols. `ws`'s `new WebSocketServer({ noServer: true })` is a
 * drop-in replacement.
 */
export class SmallWebSocketServer extends EventEmitter implements WebSocketServerLike {
  readonly options = { noServer: true };
  private readonly clients = new Set<ServerWebSocket>();

  /** `maxPayload`: the largest message accepted, in bytes; bigger ones close with 1009. */
  constructor(private readonly maxPayload: number) {
    super();
  }

  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    callback: (ws: WebSocketLike) => void,
  ): void {
    const key = request.headers['sec-websocket-key'];
    if (
      request.headers['sec-websocket-version'] !== '13' ||
      typeof key !== 'string' ||
      Buffer.from(key, 'base64').length !== 16
    ) {
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nWebSocket version 13 with a 16-byte Sec-WebSocket-Key is required.',
      );
      return;
    }
    const accept = createHash('sha1')
      .update(key + HANDSHAKE_GUID)
      .digest('base64');
    const headers = [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${accept}`,
    ];
    this.emit('headers', headers, request);
    socket.write(`${headers.join('\r\n')}\r\n\r\n`);
    const ws = new ServerWebSocket(socket, head, this.maxPayload);
    this.clients.add(ws);
    ws.on('close', () => this.clients.delete(ws));
    callback(ws);
  }

  /** Closes every connection with 1001 (going away). */
  close(): void {
    for (const ws of this.clients) ws.close(CloseCode.goingAway, 'server shutting down');
  }
}

/** One accepted connection, shaped like `ws`'s WebSocket as far as hono uses it. */
class ServerWebSocket extends EventEmitter implements WebSocketLike {
  readonly protocol = '';
  /** Open from the handshake on; `close()` makes it closing, the socket's end closed. */
  readyState: 0 | 1 | 2 | 3 = OPEN;
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOpcode: number | undefined;
  private fragmentBytes = 0;
  private closeCode: number = CloseCode.abnormal;
  private closeReason = '';
  private dropTimer: NodeJS.Timeout | undefined;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly socket: Duplex,
    head: Buffer,
    private readonly maxPayload: number,
  ) {
    super();
    socket.on('error', (error) => {
      // An 'error' event without a listener would throw; hono listens once the socket opens.
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    // Node's HTTP server allows half-open sockets: a peer that only ends its side must not linger.
    socket.on('end', () => socket.end());
    socket.on('close', () => {
      clearTimeout(this.dropTimer);
      this.readyState = CLOSED;
      this.emit('close', this.closeCode, Buffer.from(this.closeReason));
    });
    // hono attaches its message listener after a promise settles; reading from the next turn of
    // the event loop on makes sure no early message (e.g. one sent with the handshake) is lost.
    setImmediate(() => {
      if (this.readyState === CLOSED) return;
      socket.on('data', (chunk: Buffer) => this.receive(chunk));
      if (head.length > 0) this.receive(head);
    });
  }

  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.readyState !== OPEN) return;
    if (typeof data === 'string') {
      this.socket.write(encodeFrame(Opcode.text, Buffer.from(data)));
      return;
    }
    const bytes = ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);
    this.socket.write(encodeFrame(Opcode.binary, bytes));
  }

  /** Starts the close handshake; the socket is dropped if the peer does not answer in time. */
  close(code: number = CloseCode.normal, reason = ''): void {
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.closeCode = code;
    this.closeReason = reason;
    this.socket.write(encodeFrame(Opcode.close, closePayload(code, reason)));
    this.dropTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS).unref();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      for (;;) {
        if (this.readyState === CLOSED) return;
        const read = readFrame(this.buffered, this.maxPayload);
        if (!read) return;
        this.buffered = this.buffered.subarray(read.size);
        this.handle(read.frame.opcode, read.frame.fin, read.frame.payload);
      }
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.buffered = Buffer.alloc(0);
      this.close(error.closeCode, error.message);
      this.socket.end();
    }
  }

  private handle(opcode: number, fin: boolean, payload: Buffer): void {
    if (opcode >= Opcode.close) {
      if (!fin || payload.length > 125) {
        throw new FrameError(CloseCode.protocolError, 'control frames must be whole and short');
      }
      this.control(opcode, payload);
      return;
    }
    if (this.readyState !== OPEN) return;
    if (opcode === Opcode.text || opcode === Opcode.binary) {
      if (this.fragmentOpcode !== undefined) {
        throw new FrameError(
          CloseCode.protocolError,
          'a new message began inside a fragmented one',
        );
      }
      if (fin) this.deliver(opcode, payload);
      else this.startFragments(opcode, payload);
      return;
    }
    if (opcode !== Opcode.continuation) {
      throw new FrameError(CloseCode.protocolError, `unknown opcode ${opcode}`);
    }
    if (this.fragmentOpcode === undefined) {
      throw new FrameError(
        CloseCode.protocolError,
        'a continuation frame with no message to continue',
      );
    }
    this.fragmentBytes += payload.length;
    if (this.fragmentBytes > this.maxPayload) {
      throw new FrameError(CloseCode.tooBig, `a message is over the ${this.maxPayload}-byte limit`);
    }
    this.fragments.push(payload);
    if (!fin) return;
    const message = Buffer.concat(this.fragments);
    const messageOpcode = this.fragmentOpcode;
    this.fragments = [];
    this.fragmentOpcode = undefined;
    this.fragmentBytes = 0;
    this.deliver(messageOpcode, message);
  }

  private startFragments(opcode: number, payload: Buffer): void {
    this.fragmentOpcode = opcode;
    this.fragments = [payload];
    this.fragmentBytes = payload.length;
  }

  private control(opcode: number, payload: Buffer): void {
    if (opcode === Opcode.ping) {
      if (this.readyState === OPEN) this.socket.write(encodeFrame(Opcode.pong, payload));
    } else if (opcode === Opcode.close) {
      const { code, reason } = parseClosePayload(payload);
      if (this.readyState === OPEN) {
        // The peer started the handshake: answer with its code (RFC 6455 §5.5.1).
        this.readyState = CLOSING;
        this.closeCode = code;
        this.closeReason = reason;
        const echo = code === CloseCode.noStatus ? Buffer.alloc(0) : closePayload(code, '');
        this.socket.write(encodeFrame(Opcode.close, echo));
      }
      // Both close frames are out: the server closes the TCP connection (RFC 6455 §7.1.1).
      this.socket.end(() => this.socket.destroy());
    } else if (opcode !== Opcode.pong) {
      throw new FrameError(CloseCode.protocolError, `unknown opcode ${opcode}`);
    }
  }

  private deliver(opcode: number, message: Buffer): void {
    if (opcode === Opcode.text) {
      try {
        this.utf8.decode(message);
      } catch {
        throw new FrameError(CloseCode.invalidPayload, 'a text message that is not UTF-8');
      }
    }
    this.emit('message', message, opcode === Opcode.binary);
  }
}
