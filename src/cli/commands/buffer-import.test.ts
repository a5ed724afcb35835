import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

describe('dreamgym buffer import of a file it cannot read', () => {
  it('leaves no database behind, nor the folders made for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-buffer-import-'));
    const binary = join(dir, 'photo.bin');
    writeFileSync(binary, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)));
    const nested = join(dir, 'new', 'folder', 'buffer.db');
    for (const db of [join(dir, 'buffer.db'), nested]) {
      const r = await runCliInProcess(['buffer', 'import', binary, '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/photo\.bin/);
    }
    expect(readdirSync(dir)).toEqual(['photo.bin']);
    expect(existsSync(join(dir, 'new'))).toBe(false);
  }, 120_000);
});
