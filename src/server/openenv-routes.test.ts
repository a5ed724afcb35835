import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { envEntry } from '../envs/registry.ts';
import type { EnvServer } from './app.ts';
import { call, registryServer } from './testing/fixtures.ts';

const trainTasks = envEntry('webshop').tasks({}).tasks('train');
let server: EnvServer;
afterEach(async () => {
  await server?.close();
});

interface Answer {
  observation: {
    text: string;
    instruction: string;
    actions: string[];
    metadata: Record<string, unknown>;
  };
  reward: number | null;
  done: boolean;
  session_id: number;
  metadata: Record<string, unknown>;
}

describe("OpenEnv's HTTP protocol under /openenv", () => {
  it('/health, /metadata and /schema describe the server', async () => {
    server = registryServer('webshop');
    expect((await call(server.app, 'GET', '/openenv/health')).json).toEqual({ status: 'healthy' });
    expect((await call(server.app, 'GET', '/openenv/metadata')).json).toEqual({
      name: 'webshop',
      description: envEntry('webshop').description,
    });
    const schema = (await call(server.app, 'GET', '/openenv/schema')).json as Record<
      string,
      { required?: string[]; properties: Record<string, unknown> }
    >;
    expect(Object.keys(schema).sort()).toEqual(['action', 'observation', 'state']);
    expect(schema.action?.required).toEqual(['action']);
    expect(Object.keys(schema.observation?.properties ?? {})).toEqual(
      expect.arrayContaining(['text', 'instruction', 'actions', 'done', 'reward']),
    );
    expect(Object.keys(schema.state?.properties ?? {})).toEqual(
      expect.arrayContaining(['episode_id', 'step_count']),
    );
  });

  it('/reset answers {observation, reward: null, done: false, metadata}; task_index and episode_id are honoured', async () => {
    server = registryServer('webshop');
    const reset = await call(server.app, 'POST', '/openenv/reset', {
      task_index: 5,
      episode_id: 'run-7/episode-1',
    });
    expect(reset.status).toBe(200);
    const answer = reset.json as Answer;
    const task = trainTasks[5] as Task;
    expect(answer.observation.instruction).toBe(task.instruction);
    expect(answer.observation.actions).toEqual(['search[<query>]']);
    expect(answer).toMatchObject({
      reward: null,
      done: false,
      session_id: expect.any(Number),
      metadata: { episode_id: 'run-7/episode-1', task_id: task.id, session_id: answer.session_id },
    });
    expect(answer.metadata).not.toHaveProperty('spec');
  });

  it('the same seed gives the same task; an empty body resets too', async () => {
    server = registryServer('webshop');
    const a = (await call(server.app, 'POST', '/openenv/reset', { seed: 9 })).json as Answer;
    const b = (await call(server.app, 'POST', '/openenv/reset', { seed: 9 })).json as Answer;
    const c = (await call(server.app, 'POST', '/openenv/reset')).json as Answer;
    const { metadata: _a, ...aSeen } = a.observation;
    const { metadata: _b, ...bSeen } = b.observation;
    expect(aSeen).toEqual(bSeen);
    expect(c.observation.text.length).toBeGreaterThan(0);
  });

  it('a reset opens a session of its own, named in the reply; /step and /state take it back', async () => {
    server = registryServer('webshop');
    const nameless = await call(server.app, 'POST', '/openenv/step', {
      action: { action: 'search[mug]' },
    });
    expect(nameless.status).toBe(409);
    expect((nameless.json as { detail: string }).detail).toMatch(
      /pass the session_id your POST \/openenv\/reset answered, or open the WebSocket/,
    );
    expect((await call(server.app, 'GET', '/openenv/state')).status).toBe(409);

    const first = (
      await call(server.app, 'POST', '/openenv/reset', { task_index: 2, episode_id: 'e1' })
    ).json as Answer;
    const other = (await call(server.app, 'POST', '/openenv/reset', { task_index: 3 }))
      .json as Answer;
    // Two clients, two sessions: never a shared one.
    expect(other.session_id).not.toBe(first.session_id);
    expect(server.sessions.size).toBe(2);
    const session_id = first.session_id;
    const step = (
      await call(server.app, 'POST', '/openenv/step', {
        action: { action: 'search[mug]' },
        timeout_s: 30,
        session_id,
      })
    ).json as Answer;
    expect(step.reward).toBe(0);
    expect(step.done).toBe(false);
    expect(step.metadata).toEqual({ terminated: false, truncated: false });
    const invalid = (
      await call(server.app, 'POST', '/openenv/step', {
        action: { action: 'click[nothing here]' },
        session_id,
      })
    ).json as Answer;
    expect(invalid.observation.text).toBe(step.observation.text);
    expect(invalid.observation.actions).toEqual(step.observation.actions);
    expect(invalid.reward).toBe(0);
    expect(invalid.metadata.invalidAction).toMatch(/no \[nothing here\]/);
    expect((await call(server.app, 'GET', `/openenv/state?session_id=${session_id}`)).json).toEqual(
      {
        episode_id: 'e1',
        step_count: 2,
        task_id: (trainTasks[2] as Task).id,
        instruction: (trainTasks[2] as Task).instruction,
        terminated: false,
        truncated: false,
        total_reward: 0,
      },
    );
    // A later reset may continue the same session; closing ends it.
    const again = (await call(server.app, 'POST', '/openenv/reset', { session_id })).json as Answer;
    expect(again.session_id).toBe(session_id);
    expect((await call(server.app, 'POST', '/openenv/close', { session_id })).status).toBe(200);
    expect((await call(server.app, 'POST', '/openenv/close', { session_id })).status).toBe(404);
    expect(server.sessions.size).toBe(1);
  });

  it('names the field at fault in a 400', async () => {
    server = registryServer('webshop');
    const { session_id } = (await call(server.app, 'POST', '/openenv/reset')).json as Answer;
    const flat = await call(server.app, 'POST', '/openenv/step', {
      action: 'search[mug]',
      session_id,
    });
    expect(flat.status).toBe(400);
    expect((flat.json as { detail: string }).detail).toMatch(/^body\.action: /);
    const extra = await call(server.app, 'POST', '/openenv/step', {
      action: { action: 'search[mug]', verbose: true },
      session_id,
    });
    expect((extra.json as { detail: string }).detail).toMatch(/body\.action: .*verbose/);
    const seed = await call(server.app, 'POST', '/openenv/reset', { seed: -1 });
    expect((seed.json as { detail: string }).detail).toMatch(/^body\.seed: /);
  });

  it('refuses a reset key it does not know, listing the ones it takes, before opening a session', async () => {
    server = registryServer('webshop');
    const reset = await call(server.app, 'POST', '/openenv/reset', {
      task_index: 1,
      difficulty: 'hard',
    });
    expect(reset.status).toBe(400);
    expect((reset.json as { detail: string }).detail).toBe(
      'body: unknown reset key "difficulty"; this server\'s reset takes seed, episode_id, task_index, from, session_id.',
    );
    expect(server.sessions.size).toBe(0);
  });

  it('/ws without a WebSocket upgrade answers 426', async () => {
    server = registryServer('webshop');
    const plain = await call(server.app, 'GET', '/openenv/ws');
    expect(plain.status).toBe(426);
  });

  it('carries metadata inside the observation too, where typed OpenEnv clients read it', async () => {
    // OpenEnv's typed clients build their observation from payload["observation"] (metadata
    // included) and keep nothing else of the answer but reward and done.
    server = registryServer('webshop', {}, { maxSteps: 1 });
    const reset = (await call(server.app, 'POST', '/openenv/reset', { episode_id: 'e2' }))
      .json as Answer;
    expect(reset.observation.metadata).toEqual(reset.metadata);
    expect(reset.observation.metadata.episode_id).toBe('e2');
    const invalid = (
      await call(server.app, 'POST', '/openenv/step', {
        action: { action: 'click[nothing]' },
        session_id: reset.session_id,
      })
    ).json as Answer;
    expect(invalid.done).toBe(true);
    expect(invalid.observation.metadata).toEqual(invalid.metadata);
    expect(invalid.observation.metadata).toMatchObject({ terminated: false, truncated: true });
    expect(invalid.observation.metadata.invalidAction).toMatch(/nothing/);
  });
});
