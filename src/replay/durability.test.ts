import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';
import { toArray } from './testing/fixtures.ts';

const child = join(import.meta.dirname, 'testing/bulk-insert-child.ts');

describe('replay buffer durability', () => {
  it('survives SIGKILL mid-insert: sound, every committed trajectory whole, no partial one', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-kill-')), 'buffer.db');
    const batch = 100;
    const proc = spawn(process.execPath, ['--import', 'tsx', child, path, String(batch)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let committed = 0;
    await new Promise<void>((resolve, reject) => {
      proc.on('error', reject);
      proc.stdout.on('data', (chunk: Buffer) => {
        const counts = [...chunk.toString().matchAll(/committed (\d+)/g)].map((m) => Number(m[1]));
        committed = Math.max(committed, ...counts);
        // Let a few transactions land, then kill while the next one is being written.
        if (committed >= 3 * batch) {
          setTimeout(() => proc.kill('SIGKILL'), 5);
          resolve();
        }
      });
      proc.on('exit', () => resolve());
    });
    await new Promise((resolve) => proc.on('exit', resolve));
    expect(proc.signalCode).toBe('SIGKILL');

    const buffer = SqliteReplayBuffer.open({ path });
    expect(buffer.integrityCheck()).toBe('ok');
    const trajectories = await toArray(buffer.trajectories());
    expect(trajectories.length).toBeGreaterThanOrEqual(committed);
    expect(trajectories.length % batch).toBe(0);
    for (const t of trajectories) {
      expect(t.steps.at(-1)?.terminated || t.steps.at(-1)?.truncated).toBe(true);
    }
    await buffer.close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT COUNT(*) FROM transitions').pluck().get();
    db.close();
    expect(rows).toBe(trajectories.reduce((s, t) => s + t.steps.length, 0));
  });
});
