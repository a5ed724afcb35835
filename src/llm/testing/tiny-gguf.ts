import { writeFile } from 'node:fs/promises';
import { Rng } from '../../core/rng.ts';
import { encodeGguf, type GgufTensor, type GgufValue } from './gguf-writer.ts';

export interface TinyLlamaOptions {
  /** Seed of the random weights. Default 0. */
  seed?: number;
  /** Transformer blocks. Default 2. */
  layers?: number;
  /** Hidden size. Default 32. */
  embeddingLength?: number;
  /** Attention heads (the hidden size must divide by it). Default 4. */
  heads?: number;
  /** Key/value heads (grouped-query attention when fewer than `heads`). Default 2. */
  headsKv?: number;
  /** Hidden size of the gated feed-forward layer. Default 64. */
  feedForwardLength?: number;
  /** Trained context length the model advertises. Default 512. */
  contextLength?: number;
}

/** Token types of llama.cpp's vocabulary (`llama_token_type`). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

/**
 * The vocabulary of a SentencePiece ("llama") tokenizer: `<unk>`, `<s>`, `</s>`, the 256 byte
 * fallback tokens (so any text, and so any JSON, can be spelled) and the printable ASCII
 * characters with `▁` for the space, which keeps prompts a few tokens shorter than bytes alone.
 */
function tinyVocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_TYPE.byte);
  }
  tokens.push('▁');
  types.push(TOKEN_TYPE.normal);
  for (let c = 0x21; c < 0x7f; c++) {
    tokens.push(String.fromCharCode(c));
    types.push(TOKEN_TYPE.normal);
  }
  return { tokens, scores: tokens.map((_, i) => -i), types };
}

/**
 * Builds a tiny llama-architecture model as GGUF bytes: random F32 weights, real shapes. It
 * talks nonsense, but llama.cpp loads and runs it in milliseconds, so tests can exercise the
 * embedded backend (grammar-constrained JSON, embeddings, context reuse) without downloading a
 * model. Same options, same bytes.
 */
export function tinyLlamaGguf(options: TinyLlamaOptions = {}): Uint8Array {
  const layers = options.layers ?? 2;
  const embd = options.embeddingLength ?? 32;
  const heads = options.heads ?? 4;
  const headsKv = options.headsKv ?? 2;
  const ff = options.feedForwardLength ?? 64;
  if (embd % heads !== 0 || heads % headsKv !== 0) {
    throw new RangeError(
      `tinyLlamaGguf: embeddingLength (${embd}) must divide by heads (${heads}), and heads by headsKv (${headsKv})`,
    );
  }
  const headDim = embd / heads;
  const kvDim = headDim * headsKv;
  const vocab = tinyVocabulary();
  const nVocab = vocab.tokens.length;
  const rng = new Rng(options.seed ?? 0);
  const random = (...dims: number[]): GgufTensor['data'] => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (rng.float() * 2 - 1) * 0.1;
    return data;
  };
  const ones = (n: number) => new Float32Array(n).fill(1);

  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [embd, nVocab], data: random(embd, nVocab) },
  ];
  for (let i = 0; i < layers; i++) {
    const blk = `blk.${i}`;
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [embd], data: ones(embd) },
      { name: `${blk}.attn_q.weight`, dims: [embd, embd], data: random(embd, embd) },
      { name: `${blk}.attn_k.weight`, dims: [embd, kvDim], data: random(embd, kvDim) },
      { name: `${blk}.attn_v.weight`, dims: [embd, kvDim], data: random(embd, kvDim) },
      { name: `${blk}.attn_output.weight`, dims: [embd, embd], data: random(embd, embd) },
      { name: `${blk}.ffn_norm.weight`, dims: [embd], data: ones(embd) },
      { name: `${blk}.ffn_gate.weight`, dims: [embd, ff], data: random(embd, ff) },
      { name: `${blk}.ffn_up.weight`, dims: [embd, ff], data: random(embd, ff) },
      { name: `${blk}.ffn_down.weight`, dims: [ff, embd], data: random(ff, embd) },
    );
  }
  tensors.push(
    { name: 'output_norm.weight', dims: [embd], data: ones(embd) },
    { name: 'output.weight', dims: [embd, nVocab], data: random(embd, nVocab) },
  );

  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: 'dreamgym-tiny-llama' },
    'general.file_type': u32(0),
    'general.alignment': u32(32),
    'llama.context_length': u32(options.contextLength ?? 512),
    'llama.embedding_length': u32(embd),
    'llama.block_count': u32(layers),
    'llama.feed_forward_length': u32(ff),
    'llama.attention.head_count': u32(heads),
    'llama.attention.head_count_kv': u32(headsKv),
    'llama.rope.dimension_count': u32(headDim),
    'llama.rope.freq_base': { type: 'f32', value: 10000 },
    'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
    'llama.vocab_size': u32(nVocab),
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'array', of: 'string', value: vocab.tokens },
    'tokenizer.ggml.scores': { type: 'array', of: 'f32', value: vocab.scores },
    'tokenizer.ggml.token_type': { type: 'array', of: 'i32', value: vocab.types },
    'tokenizer.ggml.unknown_token_id': u32(0),
    'tokenizer.ggml.bos_token_id': u32(1),
    'tokenizer.ggml.eos_token_id': u32(2),
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
    'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
  };
  return encodeGguf(metadata, tensors);
}

/** Writes {@link tinyLlamaGguf} to `path` and returns the path. */
export async function writeTinyLlamaGguf(
  path: string,
  options: TinyLlamaOptions = {},
): Promise<string> {
  await writeFile(path, tinyLlamaGguf(options));
  return path;
}
