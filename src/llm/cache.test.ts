import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileResponseCache, hashRequest } from './cache.ts';

describe('response cache', () => {
  it('hashes equal requests equally, whatever their key order', () => {
    expect(hashRequest({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(
      hashRequest({ b: [{ d: 3, c: 2 }], a: 1 }),
    );
    expect(hashRequest({ a: 1, b: undefined })).toBe(hashRequest({ a: 1 }));
    expect(hashRequest({ a: 1 })).not.toBe(hashRequest({ a: 2 }));
  });

  it('stores answers on disk under the key, with no temporary files left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-cache-'));
    const cache = new FileResponseCache(dir);
    const key = hashRequest({ q: 1 });
    expect(await cache.get(key)).toBeUndefined();
    const answer = {
      text: 'hi',
      finishReason: 'stop' as const,
      usage: { promptTokens: 1, completionTokens: 2 },
    };
    await cache.set(key, answer);
    expect(await new FileResponseCache(dir).get(key)).toEqual(answer);
    expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
  });
});
