/**
 * examples/python/grpo_groups.py, the trainer-side recipe, run as a user runs it: python3 (the
 * standard library only) against `serveEnv` serving the synthetic env with the curriculum.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { serveEnv } from './serve-env.ts';

const script = join(import.meta.dirname, '../../examples/python/grpo_groups.py');

describe('the Python GRPO recipe', () => {
  it('plays groups of one task each; their episodes reach the curriculum and the buffer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-python-recipe-'));
    const db = join(dir, 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path: db });
    await buffer.add(await webshopTrajectories(40));
    await buffer.close();
    const tasksPath = join(dir, 'tasks.db');
    const served = await serveEnv({
      env: 'synthetic:webshop',
      db,
      port: 0,
      maxSteps: 4,
      curriculum: { mode: 'variance', tasksPath, groupSize: 3, batchTasks: 2 },
    });
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(
        'python3',
        [script, '--url', served.url, '--groups', '3', '--group-size', '3'],
        { timeout: 60_000 },
      ).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') {
          throw new Error('python3 is not installed: apt-get install -y python3.');
        }
        throw error;
      }));
    } finally {
      await served.close();
    }
    const groups = stdout
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { tasks: number; rewards: number[]; advantages: number[] },
      );
    expect(groups).toHaveLength(3);
    for (const group of groups) {
      expect(group.tasks).toBe(1); // the server handed the whole group one task
      expect(group.rewards).toHaveLength(3);
      expect(group.advantages.reduce((s, a) => s + a, 0)).toBeCloseTo(0, 6);
    }
    const pool = SqliteTaskPool.open({ path: tasksPath });
    const filed = [...(await pool.groups(0)), ...(await pool.groups(1))];
    const attempts = filed.reduce((n, g) => n + g.attempts, 0);
    await pool.close();
    expect(attempts).toBe(9);
    const after = SqliteReplayBuffer.open({ path: db, create: false });
    expect((await after.stats()).byEnv.webshop?.synthetic?.trajectories).toBe(9);
    await after.close();
  }, 120_000);
});
