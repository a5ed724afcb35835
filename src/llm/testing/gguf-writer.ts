/**
 * A minimal GGUF v3 writer: header, typed key-value metadata, tensor infos and F32 tensor data,
 * each tensor aligned to 32 bytes. Enough to hand-build tiny models for tests; it does not
 * quantise. Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */

/** GGUF metadata value types (the numbers are the format's own). */
const VALUE_TYPE = {
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

type ScalarType = 'u32' | 'i32' | 'f32' | 'bool' | 'string';

/** A metadata value with its GGUF type spelled out (a JS number does not say u32 or f32). */
export type GgufValue =
  | { type: 'u32' | 'i32' | 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; of: 'u32' | 'i32' | 'f32'; value: readonly number[] }
  | { type: 'array'; of: 'string'; value: readonly string[] };

export interface GgufTensor {
  name: string;
  /** ggml order: `dims[0]` is the contiguous (innermost) dimension. */
  dims: readonly number[];
  data: Float32Array;
}

const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

/** Encodes metadata and F32 tensors as a GGUF v3 file. */
export function encodeGguf(metadata: Record<string, GgufValue>, tensors: GgufTensor[]): Uint8Array {
  for (const t of tensors) {
    const expected = t.dims.reduce((a, b) => a * b, 1);
    if (t.data.length !== expected) {
      throw new RangeError(`tensor ${t.name}: ${t.data.length} values for dims [${t.dims}]`);
    }
  }
  const out = new ByteSink();
  out.bytes(new TextEncoder().encode('GGUF'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    offsets.push(offset);
    offset = align(offset + t.data.byteLength);
  }
  tensors.forEach((t, i) => {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(GGML_TYPE_F32);
    out.u64(offsets[i] as number);
  });
  out.padTo(ALIGNMENT);
  for (const t of tensors) {
    out.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out.padTo(ALIGNMENT);
  }
  return out.finish();
}

function writeValue(out: ByteSink, v: GgufValue): void {
  out.u32(VALUE_TYPE[v.type]);
  if (v.type === 'array') {
    out.u32(VALUE_TYPE[v.of]);
    out.u64(v.value.length);
    for (const item of v.value) writeScalar(out, v.of, item);
  } else writeScalar(out, v.type, v.value);
}

function writeScalar(out: ByteSink, type: ScalarType, value: number | string | boolean): void {
  if (type === 'string') out.string(value as string);
  else if (type === 'bool') out.u8(value ? 1 : 0);
  else if (type === 'u32') out.u32(value as number);
  else if (type === 'i32') out.i32(value as number);
  else out.f32(value as number);
}

function align(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

/** A growable little-endian byte buffer. */
class ByteSink {
  private buffer = new Uint8Array(1 << 16);
  private view = new DataView(this.buffer.buffer);
  private length = 0;

  private reserve(n: number): number {
    if (this.length + n > this.buffer.length) {
      const bigger = new Uint8Array(Math.max(this.buffer.length * 2, this.length + n));
      bigger.set(this.buffer.subarray(0, this.length));
      this.buffer = bigger;
      this.view = new DataView(bigger.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(x: number): void {
    this.view.setUint8(this.reserve(1), x);
  }
  u32(x: number): void {
    this.view.setUint32(this.reserve(4), x, true);
  }
  i32(x: number): void {
    this.view.setInt32(this.reserve(4), x, true);
  }
  f32(x: number): void {
    this.view.setFloat32(this.reserve(4), x, true);
  }
  u64(x: number): void {
    this.view.setBigUint64(this.reserve(8), BigInt(x), true);
  }
  bytes(b: Uint8Array): void {
    const at = this.reserve(b.length); // before touching this.buffer: reserve may replace it
    this.buffer.set(b, at);
  }
  string(s: string): void {
    const encoded = new TextEncoder().encode(s);
    this.u64(encoded.length);
    this.bytes(encoded);
  }
  padTo(alignment: number): void {
    this.reserve((alignment - (this.length % alignment)) % alignment);
  }
  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}
