import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/types.ts';
import { BufferLocationError, BufferNotFoundError } from './buffer-errors.ts';
import { BufferReader } from './buffer-reader.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';
import { relabel, webshopTrajectories } from './testing/fixtures.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'dg-reader-'));

describe('BufferReader', () => {
  let path: string;
  let real: Trajectory[];

  beforeAll(async () => {
    real = await webshopTrajectories(8);
    const cut = real.slice(0, 2).map((t) => ({
      ...t,
      steps: [
        ...t.steps.slice(0, 1).map((s) => ({
          ...s,
          terminated: false,
          truncated: true,
          info: { truncatedBy: 'time-limit' },
        })),
      ],
    }));
    path = join(tempDir(), 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path });
    await buffer.add([...real, ...relabel(cut, 'synthetic', 'syn')]);
    await buffer.close();
  });

  it('reads headers in the order added, in slices, with how each episode ended', () => {
    const reader = BufferReader.open(path);
    try {
      const all = reader.headers();
      expect(all.map((h) => h.id)).toEqual([
        ...real.map((t) => t.id),
        ...real.slice(0, 2).map((t) => `syn-${t.id}`),
      ]);
      expect(all.slice(-2).map((h) => [h.provenance, h.end, h.steps])).toEqual([
        ['synthetic', 'time-limit', 1],
        ['synthetic', 'time-limit', 1],
      ]);
      const ended = all.slice(0, 8).map((h) => h.end);
      expect(ended.every((e) => e === 'terminated' || e === 'time-limit')).toBe(true);
      expect(reader.headers(all[2]?.rowid, 3).map((h) => h.id)).toEqual(
        all.slice(3, 6).map((h) => h.id),
      );
      expect(reader.instructions().get(real[0]?.task.id as string)).toBe(real[0]?.task.instruction);
    } finally {
      reader.close();
    }
  });

  it('rebuilds one trajectory exactly as it was added', () => {
    const reader = BufferReader.open(path);
    try {
      expect(reader.trajectory(real[3]?.id as string)).toEqual(real[3]);
      expect(reader.trajectory('no-such-id')).toBeUndefined();
    } finally {
      reader.close();
    }
  });

  it('refuses what is not a buffer, with the fix, and creates nothing', () => {
    const dir = tempDir();
    expect(() => BufferReader.open(join(dir, 'missing.db'))).toThrow(BufferNotFoundError);
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
    expect(() => BufferReader.open(dir)).toThrow(/is a directory/);
    writeFileSync(
      join(dir, 'notes.txt'),
      'hello, this is not SQLite at all, not even close.'.repeat(4),
    );
    expect(() => BufferReader.open(join(dir, 'notes.txt'))).toThrow(/not a SQLite database/);
    const other = new Database(join(dir, 'other.db'));
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect(() => BufferReader.open(join(dir, 'other.db'))).toThrow(BufferLocationError);
    expect(() => BufferReader.open(join(dir, 'other.db'))).toThrow(/not a replay buffer/);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'other.db']);
  });
});
