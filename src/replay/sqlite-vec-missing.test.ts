/** An install with `--omit=optional` has no platform binary for sqlite-vec: opening says so. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { VectorExtensionMissingError } from './buffer-errors.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';

vi.mock('sqlite-vec', () => ({
  load: () => {
    throw Object.assign(
      new Error(
        "Cannot find package 'sqlite-vec-linux-x64' imported from /app/node_modules/sqlite-vec/index.mjs",
      ),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
  },
}));

describe('a SQLite buffer without sqlite-vec’s binary', () => {
  it('fails to open naming the package to install', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dg-no-vec-')), 'buffer.db');
    const open = () => SqliteReplayBuffer.open({ path });
    expect(open).toThrow(VectorExtensionMissingError);
    expect(open).toThrow(
      "replay buffers on SQLite need sqlite-vec's platform binary sqlite-vec-linux-x64, an optional dependency that is not installed (npm install --omit=optional leaves it out): run npm install --omit=optional sqlite-vec-linux-x64, or install without --omit=optional.",
    );
  });
});
