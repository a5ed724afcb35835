/**
 * `dreamgym run` refuses bad output and buffer locations before it starts: no work done, no run
 * folder left behind.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

/** A tiny run config: it is never run, only checked. */
function config(dir: string): string {
  const file = join(dir, 'tiny.yaml');
  writeFileSync(file, 'env: webshop\noffline:\n  episodes: 5\ntrain:\n  iterations: 1\n');
  return file;
}

describe('dreamgym run before it starts', () => {
  it('refuses an --out that is a file, with the fix and no stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-run-cli-'));
    const file = join(dir, 'results.txt');
    writeFileSync(file, 'keep me');
    const r = await runCliInProcess(['run', config(dir), '--out', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: --out ${file} is a file, and a run writes a folder`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('an unreachable postgres:// or a non-SQLite --db leaves no run folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-run-cli-'));
    const notSqlite = join(dir, 'notes.db');
    writeFileSync(notSqlite, 'these are notes, not a database\n'.repeat(100));
    for (const [db, why] of [
      ['postgres://nobody@127.0.0.1:1/db', /cannot connect to the replay buffer/],
      [notSqlite, /is not a SQLite database/],
    ] as const) {
      const out = join(dir, 'run');
      const r = await runCliInProcess(['run', config(dir), '--out', out, '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(why);
      expect(existsSync(out)).toBe(false);
    }
  }, 120_000);
});
