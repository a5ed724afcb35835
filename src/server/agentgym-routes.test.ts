import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { startFakeWebShopServer } from '../envs/agentgym/testing/fake-webshop-server.ts';
import { envEntry } from '../envs/registry.ts';
import type { EnvServer } from './app.ts';
import { call, registryServer } from './testing/fixtures.ts';

const trainTasks = envEntry('webshop').tasks({}).tasks('train');
let server: EnvServer;
afterEach(async () => {
  await server?.close();
});

/** A webshop server with one session reset to train task `index`; returns the session id. */
async function started(index = 3, overrides = {}) {
  server = registryServer('webshop', overrides);
  const created = await call(server.app, 'POST', '/create');
  const id = created.json as number;
  const reset = await call(server.app, 'POST', '/reset', { env_idx: id, session_id: index });
  return { app: server.app, id, reset };
}

describe("AgentGym's WebShop protocol", () => {
  it('GET / answers "ok" and /create an int env_idx that /list_envs lists', async () => {
    server = registryServer('webshop');
    expect(await call(server.app, 'GET', '/')).toEqual({ status: 200, json: 'ok' });
    const a = await call(server.app, 'POST', '/create');
    const b = await call(server.app, 'POST', '/create');
    expect(a.status).toBe(200);
    expect(Number.isInteger(a.json)).toBe(true);
    expect(a.json).not.toBe(b.json);
    const listed = (await call(server.app, 'GET', '/list_envs')).json as number[];
    expect(listed.sort()).toEqual([a.json, b.json].sort());
  });

  it('/reset with session_id runs that task of the split and answers [observation, null]', async () => {
    const { app, id, reset } = await started(3);
    const task = trainTasks[3] as Task;
    expect(reset.status).toBe(200);
    const [text, extra] = reset.json as [string, null];
    expect(extra).toBeNull();
    expect(text).toContain(task.instruction);
    expect((await call(app, 'GET', `/observation?env_idx=${id}`)).json).toBe(text);
    expect((await call(app, 'GET', `/instruction_text?env_idx=${id}`)).json).toBe(
      `Instruction: ${task.instruction}`,
    );
    expect((await call(app, 'GET', `/available_actions?env_idx=${id}`)).json).toEqual({
      has_search_bar: true,
      clickables: ['search'],
      available_actions: ['search[<query>]'],
    });
    expect((await call(app, 'GET', `/state?env_idx=${id}`)).json).toEqual({
      url: '',
      html: text,
      instruction_text: `Instruction: ${task.instruction}`,
    });
  });

  it('/step answers {state, reward, done, info} and lowercases clickables', async () => {
    const { app, id } = await started();
    const step = await call(app, 'POST', '/step', { env_idx: id, action: 'search[kettle]' });
    expect(step.status).toBe(200);
    const answer = step.json as { state: string; reward: number; done: boolean; info: object };
    expect(answer).toMatchObject({ reward: 0, done: false });
    expect(answer.info).toEqual({ terminated: false, truncated: false });
    expect(answer.state).toMatch(/Page 1 \(Total results: \d+\)/);
    const actions = (await call(app, 'GET', `/available_actions?env_idx=${id}`)).json as {
      has_search_bar: boolean;
      clickables: string[];
    };
    expect(actions.has_search_bar).toBe(false);
    expect(actions.clickables[0]).toBe('back to search');
    expect(actions.clickables.some((c) => /^b0[a-z0-9]{8}$/.test(c))).toBe(true);
    expect(actions.clickables.every((c) => c === c.toLowerCase())).toBe(true);
  });

  it("/available_actions lists any env's admissible actions, not only WebShop's clicks", async () => {
    server = registryServer('household');
    const id = (await call(server.app, 'POST', '/create')).json as number;
    const reset = await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 2 });
    expect(reset.status).toBe(200);
    const answer = (await call(server.app, 'GET', `/available_actions?env_idx=${id}`)).json as {
      has_search_bar: boolean;
      clickables: string[];
      available_actions: string[];
    };
    expect(answer.has_search_bar).toBe(false);
    expect(answer.clickables).toEqual([]);
    expect(answer.available_actions).toContain('look');
    expect(answer.available_actions.some((a) => a.startsWith('go to '))).toBe(true);
    const go = answer.available_actions.find((a) => a.startsWith('go to ')) as string;
    const step = await call(server.app, 'POST', '/step', { env_idx: id, action: go });
    expect((step.json as { info: object }).info).not.toHaveProperty('invalidAction');
  });

  it('an invalid action leaves the page as it was, earns 0 and says why in info', async () => {
    const { app, id, reset } = await started();
    const step = await call(app, 'POST', '/step', { env_idx: id, action: 'click[no such button]' });
    const answer = step.json as { state: string; reward: number; done: boolean; info: object };
    expect(answer.state).toBe((reset.json as [string])[0]);
    expect(answer.reward).toBe(0);
    expect(answer.done).toBe(false);
    expect(answer.info).toMatchObject({
      invalidAction: expect.stringMatching(/no \[no such button\]/),
    });
  });

  it('buying ends the episode (done, info.terminated); stepping on is a 409 until reset', async () => {
    const { app, id } = await started();
    await call(app, 'POST', '/step', { env_idx: id, action: 'search[kettle]' });
    const { clickables } = (await call(app, 'GET', `/available_actions?env_idx=${id}`)).json as {
      clickables: string[];
    };
    const item = clickables.find((c) => c.startsWith('b0')) as string;
    await call(app, 'POST', '/step', { env_idx: id, action: `click[${item}]` });
    const bought = await call(app, 'POST', '/step', { env_idx: id, action: 'click[buy now]' });
    const answer = bought.json as { reward: number; done: boolean; info: Record<string, unknown> };
    expect(answer.done).toBe(true);
    expect(answer.info).toMatchObject({
      terminated: true,
      truncated: false,
      asin: item.toUpperCase(),
    });
    expect(answer.reward).toBeGreaterThanOrEqual(0);
    const after = await call(app, 'POST', '/step', { env_idx: id, action: 'click[buy now]' });
    expect(after.status).toBe(409);
    expect((after.json as { detail: string }).detail).toMatch(/terminated after 3 steps; reset/);
    await call(app, 'POST', '/reset', { env_idx: id, session_id: 4 });
    const again = await call(app, 'POST', '/step', { env_idx: id, action: 'search[mug]' });
    expect(again.status).toBe(200);
  });

  it("the env's step limit comes back as done with info.truncated", async () => {
    server = registryServer('webshop', {}, { maxSteps: 2 });
    const id = (await call(server.app, 'POST', '/create')).json as number;
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 0 });
    await call(server.app, 'POST', '/step', { env_idx: id, action: 'search[mug]' });
    const cut = await call(server.app, 'POST', '/step', { env_idx: id, action: 'click[< prev]' });
    expect(cut.json).toMatchObject({
      done: true,
      info: { terminated: false, truncated: true, truncatedBy: 'time-limit' },
    });
  });

  it('/close closes once: {closed: true}, then {closed: false}; the id is then unknown', async () => {
    const { app, id } = await started();
    expect((await call(app, 'POST', '/close', { env_idx: id })).json).toEqual({ closed: true });
    expect((await call(app, 'POST', '/close', { env_idx: id })).json).toEqual({ closed: false });
    const step = await call(app, 'POST', '/step', { env_idx: id, action: 'search[mug]' });
    expect(step.status).toBe(404);
    expect((step.json as { detail: string }).detail).toMatch(
      new RegExp(`no open session ${id}: .*reaped after 600 s without requests`),
    );
  });

  it('a reset without session_id asks the task provider, else draws from a counter seed', async () => {
    const wanted = trainTasks[7] as Task;
    server = registryServer('webshop', { taskProvider: () => wanted });
    const id = (await call(server.app, 'POST', '/create')).json as number;
    const reset = await call(server.app, 'POST', '/reset', { env_idx: id });
    expect((reset.json as [string])[0]).toContain(wanted.instruction);

    await server.close();
    server = registryServer('webshop');
    const other = (await call(server.app, 'POST', '/create')).json as number;
    const first = await call(server.app, 'POST', '/reset', { env_idx: other, session_id: null });
    const second = await call(server.app, 'POST', '/reset', { env_idx: other });
    expect(first.json).not.toEqual(second.json);
  });

  it('names the field at fault in a 400', async () => {
    const { app, id } = await started();
    const noAction = await call(app, 'POST', '/step', { env_idx: id });
    expect(noAction.status).toBe(400);
    expect((noAction.json as { detail: string }).detail).toMatch(/^body\.action: /);
    const badQuery = await call(app, 'GET', '/observation?env_idx=abc');
    expect(badQuery.status).toBe(400);
    expect((badQuery.json as { detail: string }).detail).toMatch(
      /^query\.env_idx: expected a whole number/,
    );
    const notJson = await call(app, 'POST', '/reset', '{env_idx: 1');
    expect((notJson.json as { detail: string }).detail).toMatch(/not JSON.*"env_idx": <integer>/);
    const pastSplit = await call(app, 'POST', '/reset', { env_idx: id, session_id: 10 ** 9 });
    expect(pastSplit.status).toBe(400);
    expect((pastSplit.json as { detail: string }).detail).toBe(
      'session_id 1000000000 is past the 10000 tasks a server indexes; use 0–9999.',
    );
    const tooFar = await call(app, 'POST', '/reset', { env_idx: id, session_id: -1 });
    expect((tooFar.json as { detail: string }).detail).toMatch(/^body\.session_id: /);
  });

  it('a session without an episode answers 409 saying to reset first', async () => {
    server = registryServer('webshop');
    const id = (await call(server.app, 'POST', '/create')).json as number;
    const observation = await call(server.app, 'GET', `/observation?env_idx=${id}`);
    expect(observation.status).toBe(409);
    expect((observation.json as { detail: string }).detail).toMatch(/no episode yet: reset it/);
  });
});

/** The JSON types of a value, recursively: what a client's schema sees. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  }
  return value === null ? 'null' : typeof value;
}

describe('parity with the AgentGym WebShop server', () => {
  it('answers every call with the same field names and types as the fake of the real server', async () => {
    server = registryServer('webshop');
    const fake = await startFakeWebShopServer();
    try {
      const ours = async (method: 'GET' | 'POST', path: string, body?: object) =>
        (await call(server.app, method, path, body)).json;
      const theirs = async (method: 'GET' | 'POST', path: string, body?: object) => {
        const response = await fetch(fake.url + path, {
          method,
          ...(body && {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        });
        return response.json();
      };
      const run = async (send: typeof ours) => {
        const id = (await send('POST', '/create')) as number;
        const answers = [
          await send('GET', '/'),
          await send('POST', '/reset', { env_idx: id, session_id: 1 }),
          await send('GET', `/observation?env_idx=${id}`),
          await send('GET', `/instruction_text?env_idx=${id}`),
          await send('GET', `/available_actions?env_idx=${id}`),
          await send('POST', '/step', { env_idx: id, action: 'search[mug]' }),
          await send('GET', `/available_actions?env_idx=${id}`),
          await send('POST', '/close', { env_idx: id }),
          await send('POST', '/close', { env_idx: id }),
        ];
        return answers.map(shape);
      };
      const [ourShapes, theirShapes] = [await run(ours), await run(theirs)];
      // The deliberate differences: WebShop's step info is null, ours says how the step ended;
      // our /available_actions also lists the env's actions verbatim, for envs other than shops.
      (theirShapes[5] as { info: unknown }).info = { terminated: 'boolean', truncated: 'boolean' };
      for (const at of [4, 6]) {
        (theirShapes[at] as { available_actions: unknown }).available_actions = ['string'];
      }
      expect(ourShapes).toEqual(theirShapes);
    } finally {
      await fake.close();
    }
  });
});
