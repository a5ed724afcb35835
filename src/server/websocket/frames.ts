/**
 * WebSocket frames (RFC 6455 §5): just what a server needs to read clients' frames and write its
 * own. No extensions are ever negotiated, so the reserved bits must be zero.
 */

export const Opcode = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** Close codes used here (RFC 6455 §7.4.1). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  noStatus: 1005,
  abnormal: 1006,
  invalidPayload: 1007,
  tooBig: 1009,
  tryAgainLater: 1013,
} as const;

export interface Frame {
  fin: boolean;
  opcode: number;
  /** Unmasked payload. */
  payload: Buffer;
}

/** A frame breaks the protocol; the connection must close with `closeCode`. */
export class FrameError extends Error {
  override name = 'FrameError';
  constructor(
    readonly closeCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads one client frame from the start of `buffer`: the frame and the bytes it took, or
 * undefined while the frame is incomplete. Client frames must be masked (§5.1); a payload over
 * `maxPayload` bytes is refused from its header, before it is buffered.
 */
export function readFrame(
  buffer: Buffer,
  maxPayload: number,
): { frame: Frame; size: number } | undefined {
  if (buffer.length < 2) return undefined;
  const first = buffer[0] as number;
  const second = buffer[1] as number;
  if ((first & 0x70) !== 0) {
    throw new FrameError(CloseCode.protocolError, 'reserved bits set, but no extension is in use');
  }
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    const high = buffer.readUInt32BE(2);
    length = high === 0 ? buffer.readUInt32BE(6) : Number.POSITIVE_INFINITY;
    offset = 10;
  }
  if (length > maxPayload) {
    throw new FrameError(CloseCode.tooBig, `a message is over the ${maxPayload}-byte limit`);
  }
  if ((second & 0x80) === 0) {
    throw new FrameError(CloseCode.protocolError, 'client frames must be masked');
  }
  const end = offset + 4 + length;
  if (buffer.length < end) return undefined;
  const mask = buffer.subarray(offset, offset + 4);
  const payload = Buffer.from(buffer.subarray(offset + 4, end));
  for (let i = 0; i < payload.length; i++) {
    payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
  }
  return { frame: { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload }, size: end };
}

/**
 * One final frame. Servers send unmasked frames; `mask` (4 bytes) makes a client frame, which
 * tests use to speak to the server over a raw socket.
 */
export function encodeFrame(opcode: number, payload: Buffer, mask?: Buffer): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + (mask ? 4 : 0));
  header[0] = 0x80 | opcode;
  header[1] = (mask ? 0x80 : 0) | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) header.writeUInt16BE(length, 2);
  if (lengthBytes === 8) header.writeBigUInt64BE(BigInt(length), 2);
  if (!mask) return Buffer.concat([header, payload]);
  mask.copy(header, 2 + lengthBytes);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) {
    masked[i] = (masked[i] as number) ^ (mask[i & 3] as number);
  }
  return Buffer.concat([header, masked]);
}

/** A close frame's payload: the code, then the UTF-8 reason (cut to fit the 125-byte limit). */
export function closePayload(code: number, reason: string): Buffer {
  const text = Buffer.from(reason).subarray(0, 123);
  const payload = Buffer.alloc(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  return payload;
}

/** The code and reason of a received close frame; 1005 when it carries none. */
export function parseClosePayload(payload: Buffer): { code: number; reason: string } {
  if (payload.length === 0) return { code: CloseCode.noStatus, reason: '' };
  if (payload.length === 1) {
    throw new FrameError(CloseCode.protocolError, 'a close frame with a one-byte payload');
  }
  return { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString('utf8') };
}
