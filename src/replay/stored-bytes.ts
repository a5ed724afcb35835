import * as crypto from 'node:crypto';

/**
 * How both buffer backends key and hold what they store: an observation by a 64-bit hash of its
 * JSON, a vector as its float32 bytes. One definition, so a buffer migrated between backends
 * keeps the same keys and vectors.
 */

/** SHA-1 of a string: the one-shot `crypto.hash` where Node has it (≥ 20.12), else a Hash object. */
const sha1: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'buffer')
    : (text) => crypto.createHash('sha1').update(text).digest();

/** An observation's key: the first 8 bytes of its JSON's SHA-1, as a signed 64-bit integer. */
export function observationHash(json: string): bigint {
  return sha1(json).readBigInt64LE(0);
}

/** A vector as stored: its float32 bytes (a view, not a copy). */
export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored vector back from its bytes (a copy, aligned for Float32Array). */
export function vectorFromBytes(bytes: Buffer): Float32Array {
  return new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}
