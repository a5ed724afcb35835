import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import type { Observation, Step, Task } from '../core/types.ts';
import { startFakeAlfWorldServer } from '../envs/agentgym/testing/fake-alfworld-server.ts';
import { envEntry } from '../envs/registry.ts';
import { HouseholdExpert } from '../policy/experts/household-expert.ts';
import { NOTHING_HAPPENS } from './alfworld-routes.ts';
import type { EnvServer } from './app.ts';
import { call, registryServer } from './testing/fixtures.ts';

const trainTasks = envEntry('household').tasks({}).tasks('train');
let server: EnvServer;
afterEach(async () => {
  await server?.close();
});

interface Reset {
  id: number;
  observation: string;
  available_actions: string[];
  task_type: string;
}
interface StepAnswer {
  observation: string;
  reward: number;
  available_actions: string[];
  done: boolean;
}

async function started(game = 4) {
  server = registryServer('household');
  const { id } = (await call(server.app, 'POST', '/alfworld/create')).json as { id: number };
  const reset = await call(server.app, 'POST', '/alfworld/reset', { id, game, world_type: 'Text' });
  return { app: server.app, id, reset: reset.json as Reset };
}

describe("AgentGym's ALFWorld protocol under /alfworld", () => {
  it('/create answers {id}; /reset {id, game} runs that task with its admissible commands', async () => {
    const { id, reset } = await started(4);
    const task = trainTasks[4] as Task;
    expect(reset.id).toBe(id);
    expect(reset.observation).toContain(`Your task is to: ${task.instruction}`);
    expect(reset.available_actions).toContain('look');
    expect(reset.task_type).toBe((task.spec as { goal: { type: string } }).goal.type);
  });

  it('/step answers ALFWorld feedback; an invalid command says "Nothing happens." and changes nothing', async () => {
    const { app, id, reset } = await started();
    const go = reset.available_actions.find((a) => a.startsWith('go to ')) as string;
    const moved = (await call(app, 'POST', '/alfworld/step', { id, action: go }))
      .json as StepAnswer;
    expect(moved.observation).toMatch(/^You arrive at /);
    expect(moved).toMatchObject({ reward: 0, done: false });
    const stuck = (await call(app, 'POST', '/alfworld/step', { id, action: 'fly to the moon' }))
      .json as StepAnswer;
    expect(stuck).toEqual({ ...moved, observation: NOTHING_HAPPENS });
    expect((await call(app, 'GET', `/alfworld/observation?id=${id}`)).json).toMatch(
      /^You arrive at /,
    );
    expect((await call(app, 'GET', `/alfworld/available_actions?id=${id}`)).json).toEqual(
      moved.available_actions,
    );
    const detail = (await call(app, 'GET', `/alfworld/detail?id=${id}`)).json as Record<
      string,
      unknown
    >;
    expect(detail).toMatchObject({
      world_type: 'Text',
      observation: NOTHING_HAPPENS,
      done: false,
      deleted: false,
      info: { invalidAction: expect.any(String), feedback: NOTHING_HAPPENS },
    });
  });

  it('a solved task is done with reward 1; stepping on answers 200 {error}', async () => {
    const { app, id, reset } = await started(4);
    const task = trainTasks[4] as Task;
    const expert = new HouseholdExpert();
    const history: Step[] = [];
    let observation: Observation = { text: reset.observation, instruction: task.instruction };
    let answer: StepAnswer | undefined;
    for (let t = 0; t < 30 && !answer?.done; t++) {
      const { action } = await expert.act(observation, { task, history, rng: new Rng(t) });
      answer = (await call(app, 'POST', '/alfworld/step', { id, action })).json as StepAnswer;
      observation = {
        text: answer.observation,
        instruction: task.instruction,
        actions: answer.available_actions,
      };
      history.push({
        action,
        observation,
        reward: answer.reward,
        terminated: answer.done,
        truncated: false,
      });
    }
    expect(answer).toMatchObject({ done: true, reward: 1 });
    const after = await call(app, 'POST', '/alfworld/step', { id, action: 'look' });
    expect(after.status).toBe(200);
    expect((after.json as { error: string }).error).toMatch(
      /episode terminated after \d+ steps; reset/,
    );
  });

  it('answers failures as 200 {error}, as the ALFWorld server does', async () => {
    const { app, id } = await started();
    const error = async (path: string, body: object) => {
      const answer = await call(app, 'POST', path, body);
      expect(answer.status).toBe(200);
      return (answer.json as { error: string }).error;
    };
    expect(await error('/alfworld/reset', { id, game: 0, world_type: 'Embody' })).toMatch(
      /world_type "Embody" is not served: .* send "Text"/,
    );
    expect(await error('/alfworld/reset', { id: 12345, game: 0, world_type: 'Text' })).toMatch(
      /^no open session 12345/,
    );
    expect(await error('/alfworld/reset', { id, game: 20000, world_type: 'Text' })).toMatch(
      /^game 20000 is past the 10000 tasks/,
    );
    expect(await error('/alfworld/step', { id: 12345, action: 'look' })).toMatch(
      /^no open session/,
    );
    const unknown = await call(app, 'GET', '/alfworld/observation?id=12345');
    expect(unknown.json).toEqual({ error: expect.stringMatching(/^no open session 12345/) });
  });

  it('malformed requests are 400s naming the field', async () => {
    const { app } = await started();
    const missing = await call(app, 'POST', '/alfworld/reset', { id: 1, world_type: 'Text' });
    expect(missing.status).toBe(400);
    expect((missing.json as { detail: string }).detail).toMatch(/^body\.game: /);
    const query = await call(app, 'GET', '/alfworld/detail?id=');
    expect(query.status).toBe(400);
    expect((query.json as { detail: string }).detail).toMatch(/^query\.id: /);
  });

  it('/close answers {id, closed}, then the id is gone', async () => {
    const { app, id } = await started();
    expect((await call(app, 'POST', '/alfworld/close', { id })).json).toEqual({ id, closed: true });
    expect((await call(app, 'POST', '/alfworld/close', { id })).json).toEqual({
      id,
      closed: false,
      error: `The id ${id} is not valid.`,
    });
  });
});

/** The JSON types of a value, recursively. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  }
  return typeof value;
}

describe('parity with the AgentGym ALFWorld server', () => {
  it('answers with the same field names and types as the fake of the real server', async () => {
    server = registryServer('household');
    const fake = await startFakeAlfWorldServer();
    try {
      const ours = async (path: string, body?: object) =>
        (await call(server.app, 'POST', `/alfworld${path}`, body)).json;
      const theirs = async (path: string, body?: object) => {
        const response = await fetch(fake.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          ...(body && { body: JSON.stringify(body) }),
        });
        return response.json();
      };
      const run = async (send: typeof ours) => {
        const { id } = (await send('/create')) as { id: number };
        const reset = (await send('/reset', { id, game: 1, world_type: 'Text' })) as Reset;
        return [
          reset,
          await send('/step', { id, action: reset.available_actions.at(-1) as string }),
          await send('/step', { id, action: 'jump' }),
          await send('/reset', { id, game: 1, world_type: 'Hybrid3D' }),
          await send('/step', { id: 99999, action: 'look' }),
          await send('/close', { id }),
        ].map(shape);
      };
      expect(await run(ours)).toEqual(await run(theirs));
    } finally {
      await fake.close();
    }
  });
});
