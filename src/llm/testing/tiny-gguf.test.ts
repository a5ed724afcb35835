import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { encodeGguf } from './gguf-writer.ts';
import { tinyLlamaGguf, writeTinyLlamaGguf } from './tiny-gguf.ts';

describe('tiny GGUF writer', () => {
  it('writes a file that node-llama-cpp parses back with our metadata and tensors', async () => {
    const path = await writeTinyLlamaGguf(
      join(mkdtempSync(join(tmpdir(), 'dreamgym-gguf-')), 'tiny.gguf'),
      { layers: 3, embeddingLength: 48, heads: 6, headsKv: 3, feedForwardLength: 96 },
    );
    const info = await readGgufFileInfo(path);
    expect(info.version).toBe(3);
    expect(info.metadata.general.architecture).toBe('llama');
    expect(info.architectureMetadata).toMatchObject({
      block_count: 3,
      embedding_length: 48,
      feed_forward_length: 96,
      attention: { head_count: 6, head_count_kv: 3 },
    });
    const tokens = info.metadata.tokenizer.ggml.tokens as string[];
    expect(tokens.slice(0, 4)).toEqual(['<unk>', '<s>', '</s>', '<0x00>']);
    expect(info.tensorInfo).toHaveLength(3 + 3 * 9);
    const q = info.tensorInfo?.find((t) => t.name === 'blk.2.attn_k.weight');
    expect(q?.dimensions.map(Number)).toEqual([48, 24]);
    for (const t of info.tensorInfo ?? []) expect(Number(t.offset) % 32).toBe(0);
    expect(readFileSync(path).length % 32).toBe(0);
  });

  it('is deterministic in its seed', () => {
    expect(tinyLlamaGguf({ seed: 1 })).toEqual(tinyLlamaGguf({ seed: 1 }));
    expect(tinyLlamaGguf({ seed: 1 })).not.toEqual(tinyLlamaGguf({ seed: 2 }));
  });

  it('rejects inconsistent shapes', () => {
    expect(() => tinyLlamaGguf({ embeddingLength: 30, heads: 4 })).toThrow(/divide/);
    expect(() => encodeGguf({}, [{ name: 'w', dims: [2, 3], data: new Float32Array(5) }])).toThrow(
      /5 values for dims \[2,3\]/,
    );
  });
});
