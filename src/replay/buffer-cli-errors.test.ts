/**
 * Issue 22, items 6 and 7: `dreamgym buffer` on bad input says what is wrong and how to fix it —
 * no stack trace, no memory blow-up — and a failing or read-only command creates nothing.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'dreamgym-buffer-errors-'));

/** A failure that names the fix: exit 1, one `error:` line, no stack frames. */
function expectCleanFailure(run: { code: number; stderr: string }, message: string | RegExp) {
  expect(run.code, `exit code ${run.code}; stderr:\n${run.stderr}`).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).toMatch(/^error: /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('dreamgym buffer on bad input', () => {
  it('import of a directory names it and creates no buffer', async () => {
    const dir = tempDir();
    const db = join(dir, 'buffer.db');
    const run = await runCliInProcess(['buffer', 'import', dir, '--db', db]);
    expectCleanFailure(run, `${dir} is a directory; pass a trajectory JSONL file`);
    expect(existsSync(db)).toBe(false);
  }, 60_000);

  it('import of a huge file without newlines fails at the line bound, not out of memory', async () => {
    const dir = tempDir();
    const huge = join(dir, 'huge.jsonl');
    const fd = openSync(huge, 'w');
    closeSync(fd);
    // 1 GiB of zero bytes, sparse on disk: as the probe, but without the disk cost.
    const { truncateSync } = await import('node:fs');
    truncateSync(huge, 2 ** 30);
    const db = join(dir, 'buffer.db');
    const run = await runCliInProcess(['buffer', 'import', huge, '--db', db]);
    expectCleanFailure(run, `${huge}:1: line longer than 64 MiB`);
    // The import adds all or nothing: the buffer it would have created is not left behind empty.
    expect(existsSync(db)).toBe(false);
  }, 120_000);

  it('--db on a file that is not SQLite says so', async () => {
    const dir = tempDir();
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'these are my notes, not a database\n'.repeat(200));
    const run = await runCliInProcess(['buffer', 'stats', '--db', notDb]);
    expectCleanFailure(run, `${notDb} is not a SQLite database, so not a replay buffer`);
  }, 60_000);

  it('a read command on a missing buffer fails and creates neither folder nor file', async () => {
    const dir = tempDir();
    const db = join(dir, 'missing/dir/x.db');
    for (const args of [
      ['stats', '--db', db],
      ['export', '--db', db, '--out', join(dir, 'out.jsonl')],
      ['search', '--db', db, '--state', 'a page', '--action', 'click[x]'],
    ]) {
      const run = await runCliInProcess(['buffer', ...args]);
      expectCleanFailure(run, `${db}: no replay buffer there`);
    }
    expect(readdirSync(dir)).toEqual([]);
  }, 180_000);

  it('a URL of an unsupported backend is refused, naming what is supported, and nothing is created', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.jsonl');
    writeFileSync(data, '');
    mkdirSync(join(dir, 'cwd'));
    const run = await runCliInProcess(
      ['buffer', 'import', data, '--db', 'mysql://user:secret@host/db'],
      { cwd: join(dir, 'cwd') },
    );
    expectCleanFailure(
      run,
      /mysql:\/\/ replay buffers are not supported .*pass a SQLite file path/,
    );
    expect(run.stderr).not.toContain('secret');
    expect(readdirSync(join(dir, 'cwd'))).toEqual([]);
  }, 60_000);
});
