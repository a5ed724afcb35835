/**
 * Every rollout counted: an episode its client leaves unfinished — reset mid-episode, the session
 * closed, or reaped when idle — is reported abandoned, counted in /metrics, recorded and filed
 * with the curriculum (or not, as configured).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/types.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { type AbandonedEpisodes, serveEnv } from './serve-env.ts';
import { call, registryServer } from './testing/fixtures.ts';

describe('abandoned episodes', () => {
  it('are reported when the client resets, closes or goes quiet, and counted in /metrics', async () => {
    let now = 0;
    const finished: Trajectory[] = [];
    const abandoned: Array<{ trajectory: Trajectory; reason: string }> = [];
    const server = registryServer('webshop', {
      clock: () => now,
      idleTimeoutMs: 1000,
      onEpisode: (trajectory) => {
        finished.push(trajectory);
      },
      onAbandoned: (trajectory, reason) => {
        abandoned.push({ trajectory, reason });
      },
    });
    // AgentGym: one step, then a reset before the episode ended.
    const id = (await call(server.app, 'POST', '/create')).json as number;
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 3 });
    await call(server.app, 'POST', '/step', { env_idx: id, action: 'search[mug]' });
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 4 });
    // OpenEnv over HTTP: a reset, no step, then the session closed.
    const { session_id } = (await call(server.app, 'POST', '/openenv/reset', {})).json as {
      session_id: number;
    };
    await call(server.app, 'POST', '/openenv/close', { session_id });
    // The AgentGym session's second episode: the client goes quiet and the reaper closes it.
    now += 5000;
    await server.sessions.reapIdle();

    expect(finished).toEqual([]);
    expect(abandoned.map((a) => [a.trajectory.steps.length, a.reason])).toEqual([
      [1, 'reset by the client before it ended'],
      [0, 'closed by the client'],
      [0, 'idle for over 1 s'],
    ]);
    const [first] = abandoned;
    expect(first?.trajectory.steps[0]).toMatchObject({
      action: 'search[mug]',
      terminated: false,
      truncated: true,
      info: { truncatedBy: 'abandoned', abandoned: 'reset by the client before it ended' },
    });
    expect(first?.trajectory.provenance).toBe('real-online');
    expect(server.sessions.stats.episodesAbandoned).toBe(3);
    const metrics = await (await server.app.request('/metrics')).text();
    expect(metrics).toMatch(/dreamgym_episodes_total\{end="abandoned"\} 3/);
    await server.close();
  });

  it('an episode that ended is never reported abandoned by a later reset or close', async () => {
    const abandoned: Trajectory[] = [];
    const server = registryServer(
      'webshop',
      { onAbandoned: (t) => void abandoned.push(t) },
      { maxSteps: 1 },
    );
    const id = (await call(server.app, 'POST', '/create')).json as number;
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 0 });
    const step = (await call(server.app, 'POST', '/step', { env_idx: id, action: 'search[mug]' }))
      .json as { done: boolean };
    expect(step.done).toBe(true);
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 1 });
    await call(server.app, 'POST', '/step', { env_idx: id, action: 'search[mug]' });
    await call(server.app, 'POST', '/close', { env_idx: id });
    expect(abandoned).toEqual([]);
    await server.close();
  });

  /** A served synthetic webshop with the curriculum (groups of 2); one group: one finished, one abandoned. */
  async function servedGroup(abandonedOption?: AbandonedEpisodes) {
    const dir = mkdtempSync(join(tmpdir(), 'dg-abandoned-'));
    const db = join(dir, 'buffer.db');
    const seeded = SqliteReplayBuffer.open({ path: db });
    await seeded.add(await webshopTrajectories(20));
    await seeded.close();
    const tasksPath = join(dir, 'tasks.db');
    const record = join(dir, 'record.jsonl');
    const served = await serveEnv({
      env: 'synthetic:webshop',
      db,
      port: 0,
      maxSteps: 1,
      record,
      curriculum: { mode: 'variance', tasksPath, groupSize: 2, batchTasks: 1 },
      ...(abandonedOption && { abandoned: abandonedOption }),
    });
    const app = served.server.app;
    const a = (await call(app, 'POST', '/create')).json as number;
    const b = (await call(app, 'POST', '/create')).json as number;
    await call(app, 'POST', '/reset', { env_idx: a });
    await call(app, 'POST', '/reset', { env_idx: b });
    await call(app, 'POST', '/step', { env_idx: a, action: 'search[mug]' }); // ends: 1 step
    await call(app, 'POST', '/step', { env_idx: b, action: 'search[mug]' }).catch(() => undefined);
    // b's episode also ended at its step limit; a third reset of b's session opens one more
    // episode, which b's client then leaves by closing.
    const c = (await call(app, 'POST', '/create')).json as number;
    await call(app, 'POST', '/reset', { env_idx: c });
    await call(app, 'POST', '/close', { env_idx: c });
    const metrics = await (await app.request('/metrics')).text();
    await served.close();
    const pool = SqliteTaskPool.open({ path: tasksPath });
    const groups = [...(await pool.groups(0)), ...(await pool.groups(1))];
    await pool.close();
    const buffer = SqliteReplayBuffer.open({ path: db, create: false });
    const stored = await buffer.trajectoryIds({ provenance: 'synthetic' });
    await buffer.close();
    return { metrics, groups, recorded: await readTrajectories(record), stored };
  }

  it('by default are recorded, written back and filed with the curriculum as failures', async () => {
    const { metrics, groups, recorded, stored } = await servedGroup();
    expect(metrics).toMatch(/dreamgym_episodes_total\{end="abandoned"\} 1/);
    expect(recorded).toHaveLength(3);
    expect(recorded.filter((t) => t.steps.length === 0)).toHaveLength(1);
    expect(stored).toHaveLength(3);
    // Three rollouts handed out by the curriculum, three rewards filed.
    expect(groups.reduce((n, g) => n + g.attempts, 0)).toBe(3);
  }, 60_000);

  it('record: false and curriculum: drop leave them out, still counted in /metrics', async () => {
    const { metrics, groups, recorded, stored } = await servedGroup({
      record: false,
      curriculum: 'drop',
    });
    expect(metrics).toMatch(/dreamgym_episodes_total\{end="abandoned"\} 1/);
    expect(recorded).toHaveLength(2);
    expect(stored).toHaveLength(2);
    expect(groups.reduce((n, g) => n + g.attempts, 0)).toBe(2);
  }, 60_000);
});
