/**
 * TRL's GRPOTrainer in CI: python/tests/trl_grpo.py trains a tiny Qwen2-shaped model, built
 * from scratch with its tokenizer, for two optimizer steps against `serveEnv` serving
 * `synthetic:webshop` with the curriculum on, through dreamgym-client's `environment_factory`.
 * What the trainer got is checked against what the server kept: the record file, the buffer,
 * the curriculum's task pool and `/metrics`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { venvPython } from '../core/testing/python.ts';
import { totalReward } from '../core/types.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { openServedCurriculum, type ServeEnvOptions, serveEnv } from './serve-env.ts';

const root = resolve(import.meta.dirname, '../..');
const GROUP_SIZE = 2;
const GROUPS_PER_STEP = 2;
const STEPS = 2;

interface Rollout {
  episode_id: string;
  task_id: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
}
interface Run {
  optimizer_steps: number;
  weights_changed: boolean;
  rollouts: Rollout[];
  logs: Array<Record<string, number>>;
  seconds: number;
}

it('GRPOTrainer trains on the served synthetic env: every rollout an episode, groups one task each', async () => {
  const python = venvPython();
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-trl-grpo-'));
  const db = join(dir, 'buffer.db');
  const buffer = SqliteReplayBuffer.open({ path: db });
  await buffer.add(await webshopTrajectories(40));
  await buffer.close();
  const record = join(dir, 'episodes.jsonl');
  const tasksPath = join(dir, 'tasks.db');
  // One curriculum iteration holds every group of the run, so its tasks are known in advance:
  // the tiny model's vocabulary has a purchase for each.
  const options = (path: string) =>
    ({
      env: 'synthetic:webshop',
      db,
      curriculum: {
        mode: 'variance',
        tasksPath: path,
        groupSize: GROUP_SIZE,
        batchTasks: STEPS * GROUPS_PER_STEP,
      },
    }) satisfies ServeEnvOptions;
  const preview = await openServedCurriculum(options(join(dir, 'preview-tasks.db')));
  const instructions: string[] = [];
  for (let g = 0; g < STEPS * GROUPS_PER_STEP * GROUP_SIZE; g++) {
    instructions.push((await preview.feed.next()).instruction);
  }
  await preview.pool.close();
  // The script picks the product its "purchase" tool call buys on a second server that writes
  // nothing back, so that the first server's episodes are the trainer's rollouts alone.
  const probe = await serveEnv({ env: 'synthetic:webshop', db, port: 0, writeBack: false });
  const served = await serveEnv({ ...options(tasksPath), port: 0, maxSteps: 4, record });
  const started = performance.now();
  let run: Run;
  let metrics: string;
  try {
    const { stdout } = await promisify(execFile)(
      python,
      [
        'python/tests/trl_grpo.py',
        ...['--url', served.url, '--probe-url', probe.url, '--steps', String(STEPS)],
        ...['--group-size', String(GROUP_SIZE), '--groups-per-step', String(GROUPS_PER_STEP)],
        ...['--output-dir', join(dir, 'trainer')],
        ...['--instructions', JSON.stringify([...new Set(instructions)])],
      ],
      { cwd: root, timeout: 170_000, maxBuffer: 16 << 20 },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(
        `trl_grpo.py failed (a module missing? run npm run setup):\n${error.stderr ?? error.message}`,
      );
    });
    run = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Run;
    metrics = await (await fetch(`${served.url}/metrics`)).text();
  } finally {
    await served.close();
    await probe.close();
  }
  console.log(
    `TRL GRPO: ${run.optimizer_steps} optimizer steps, ${run.rollouts.length} rollouts (rewards ${run.rollouts.map((r) => r.reward.toFixed(2)).join(' ')}), ${run.seconds.toFixed(1)} s from probe to trained, ${((performance.now() - started) / 1000).toFixed(1)} s with Python's start`,
  );

  expect(run.optimizer_steps).toBe(STEPS);
  const rollouts = run.rollouts;
  expect(rollouts).toHaveLength(STEPS * GROUP_SIZE * GROUPS_PER_STEP);

  // Every rollout is an episode the server recorded, wrote back to the buffer and counted.
  const episodes = new Map((await readTrajectories(record)).map((t) => [t.id, t]));
  expect(episodes.size).toBe(rollouts.length);
  for (const rollout of rollouts) {
    const episode = episodes.get(rollout.episode_id);
    if (!episode) throw new Error(`rollout ${rollout.episode_id} is not in the record`);
    expect(episode.task.id).toBe(rollout.task_id);
    // The reward the trainer got is the episode's.
    expect(rollout.reward).toBeCloseTo(totalReward(episode), 9);
    expect(rollout.terminated || rollout.truncated).toBe(true);
  }
  const after = SqliteReplayBuffer.open({ path: db, create: false });
  expect((await after.stats()).byEnv.webshop?.synthetic?.trajectories).toBe(rollouts.length);
  await after.close();
  const ended = [...metrics.matchAll(/^dreamgym_episodes_total\{[^}]*\} (\d+)$/gm)];
  expect(ended.reduce((n, m) => n + Number(m[1]), 0)).toBe(rollouts.length);

  // GRPO's groups are the curriculum's: each group of consecutive rollouts played one task.
  for (let g = 0; g < rollouts.length; g += GROUP_SIZE) {
    const tasks = new Set(rollouts.slice(g, g + GROUP_SIZE).map((r) => r.task_id));
    expect(tasks.size).toBe(1);
  }
  const pool = SqliteTaskPool.open({ path: tasksPath });
  const groups = await Promise.all([0, 1, 2, 3].map((i) => pool.groups(i)));
  const attempts = groups.flat().reduce((n, g) => n + g.attempts, 0);
  await pool.close();
  expect(attempts).toBe(rollouts.length);

  // The rewards reached the trainer: its logged mean per step is the mean of that step's
  // rollouts, and where a group's rewards differed GRPO had an advantage to follow.
  expect(rollouts.some((r) => r.reward > 0)).toBe(true);
  expect(run.weights_changed).toBe(true);
  const stepLogs = run.logs.filter((l) => 'rewards/DreamGymEnv/mean' in l);
  expect(stepLogs).toHaveLength(STEPS);
  const perStep = rollouts.length / STEPS;
  stepLogs.forEach((log, step) => {
    const batch = rollouts.slice(step * perStep, (step + 1) * perStep);
    const mean = batch.reduce((s, r) => s + r.reward, 0) / batch.length;
    expect(log['rewards/DreamGymEnv/mean']).toBeCloseTo(mean, 5);
  });
}, 180_000);
