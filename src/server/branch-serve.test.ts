/**
 * Branching over the wire: a served synthetic env starts from a recorded real state when a
 * trainer's reset names one (OpenEnv's reset keyword `from`, AgentGym's `from` in `/reset`); a
 * served real env refuses it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step, Trajectory } from '../core/types.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { type ServedEnv, serveEnv } from './serve-env.ts';

let synthetic: ServedEnv;
let real: ServedEnv;
let episode: Trajectory;

beforeAll(async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'dreamgym-branch-serve-')), 'buffer.db');
  const buffer = SqliteReplayBuffer.open({ path: db });
  const offline = await webshopTrajectories(30);
  await buffer.add(offline);
  await buffer.close();
  episode = offline.find((t) => t.steps.length >= 3) as Trajectory;
  synthetic = await serveEnv({ env: 'synthetic:webshop', db, port: 0, writeBack: false });
  real = await serveEnv({ env: 'webshop', port: 0 });
});
afterAll(async () => {
  await synthetic?.close();
  await real?.close();
});

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('serving resets from a real state', () => {
  it("starts an OpenEnv episode in the recorded episode's state", async () => {
    const { status, body } = await post(`${synthetic.url}/openenv/reset`, {
      from: { trajectory: episode.id, step: 2 },
    });
    expect(status).toBe(200);
    const observation = body.observation as { text: string; instruction: string };
    expect(observation.text).toBe((episode.steps[1] as Step).observation.text);
    expect(observation.instruction).toBe(episode.task.instruction);
    expect(body.metadata).toMatchObject({ task_id: episode.task.id });
  });

  it('starts an AgentGym episode there too', async () => {
    const { body: id } = await post(`${synthetic.url}/create`, {});
    const { status, body } = await post(`${synthetic.url}/reset`, {
      env_idx: id,
      from: { trajectory: episode.id, step: 1 },
    });
    expect(status).toBe(200);
    expect((body as unknown as [string, null])[0]).toBe(
      (episode.steps[0] as Step).observation.text,
    );
  });

  it('names the trajectory and the step it cannot start from', async () => {
    const { status, body } = await post(`${synthetic.url}/openenv/reset`, {
      from: { trajectory: 'no-such-episode', step: 0 },
    });
    expect(status).toBe(400);
    expect(String(body.detail)).toMatch(
      /trajectory no-such-episode at step 0: the buffer holds no steps/,
    );
    const past = await post(`${synthetic.url}/openenv/reset`, {
      from: { trajectory: episode.id, step: 99 },
    });
    expect(past.status).toBe(400);
    expect(String(past.body.detail)).toMatch(new RegExp(`${episode.id} at step 99`));
  });

  it('refuses a state together with a task index', async () => {
    const { status, body } = await post(`${synthetic.url}/openenv/reset`, {
      from: { trajectory: episode.id, step: 1 },
      task_index: 3,
    });
    expect(status).toBe(400);
    expect(String(body.detail)).toMatch(/takes that episode's task: drop task_index or from/);
  });

  it('is refused by a real env, with the fix named', async () => {
    const { status, body } = await post(`${real.url}/openenv/reset`, {
      from: { trajectory: episode.id, step: 1 },
    });
    expect(status).toBe(400);
    expect(String(body.detail)).toMatch(
      /cannot start from a recorded state.*serve synthetic:FAMILY/,
    );
  });
});
