import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvNotResetError } from '../../core/errors.ts';
import type { Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import type { StepResult } from '../env.ts';
import { actionsInText } from './dialects.ts';
import { AgentGymHttpError, AgentGymProtocolError, AgentGymServerError } from './errors.ts';
import { AgentGymGenericEnv } from './generic-client.ts';
import { agentgymEntry } from './index.ts';
import { agentgymTask } from './tasks.ts';
import {
  type FakeGenericServer,
  fakeBeaconPath,
  fakeBeaconTask,
  startFakeGenericServer,
} from './testing/fake-generic-server.ts';

let generic: FakeGenericServer;
let maze: FakeGenericServer;
let babyai: FakeGenericServer;
let tool: FakeGenericServer;
beforeAll(async () => {
  [generic, maze, babyai, tool] = await Promise.all([
    startFakeGenericServer(),
    startFakeGenericServer({ prefix: '/maze', taskField: 'game', listing: 'fixed' }),
    startFakeGenericServer({ listing: 'text' }),
    startFakeGenericServer({ session: 'env_idx', taskField: 'id', listing: 'none' }),
  ]);
});
afterAll(async () => {
  await Promise.all([generic, maze, babyai, tool].map((server) => server.close()));
});

const goal = (index: number) => {
  const [row, col] = fakeBeaconTask(index).beacon;
  return `reach the beacon at row ${row}, column ${col}`;
};
/** Walks the fake's shortest path to the beacon. */
const solve = async (_observation: unknown, task: Task, history: readonly unknown[]) =>
  fakeBeaconPath(task.spec?.index as number)[history.length] ?? 'look';
const env = (server: string, url: string) =>
  new AgentGymGenericEnv(server, { url, http: { backoffMs: 1, retries: 1 } });

runEnvConformance(
  {
    name: 'agentgym:generic:beacon (registry entry, 30-step limit)',
    makeEnv: () => agentgymEntry(`agentgym:generic:beacon@${generic.url}`).make({}),
    task: agentgymTask(
      'beacon',
      7,
      `Your goal: ${goal(7)}.\nYou are at row ${fakeBeaconTask(7).start.join(', column ')}.`,
    ),
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'agentgym:generic:beacon solved',
    makeEnv: () => env('beacon', generic.url),
    solve,
    maxSteps: 10,
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'agentgym:maze (fixed listing under /maze)',
    makeEnv: () => agentgymEntry(`agentgym:maze@${maze.url}`).make({}),
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'agentgym:babyai (actions listed in the text)',
    makeEnv: () => agentgymEntry(`agentgym:babyai@${babyai.url}`).make({}),
    task: agentgymTask('babyai', 12, `${goal(12)}.`),
  },
  { describe, it },
);

describe('AgentGymGenericEnv, generic protocol', () => {
  it('sends ids and task indices in the protocol fields and lists the actions of the session', async () => {
    const beacon = env('beacon', generic.url);
    const { observation, info } = await beacon.reset({ task: agentgymTask('beacon', 31) });
    expect(generic.callsTo('/create').at(-1)?.body).toEqual({});
    expect(generic.callsTo('/reset').at(-1)?.body).toEqual({ id: info.session, data_idx: 31 });
    expect(generic.callsTo('/available_actions').at(-1)?.query).toEqual({
      id: String(info.session),
    });
    expect(info.task).toMatchObject({ id: 'agentgym:beacon/31', env: 'agentgym:beacon' });
    expect(observation.instruction).toBe(observation.text);
    expect(observation.actions).toEqual([
      'look',
      'move east',
      'move north',
      'move south',
      'move west',
    ]);
    const moved = await beacon.step('  Move   SOUTH ');
    expect(generic.callsTo('/step').at(-1)?.body).toEqual({
      id: info.session,
      action: 'move south',
    });
    expect(moved.observation.text).toMatch(/^You (are at row \d, column \d|bump into the edge)\./);
    await beacon.close();
    expect(generic.closed).toContain(info.session);
    expect(generic.callsTo('/close').at(-1)?.body).toEqual({ id: info.session });
  });

  it('refuses actions the server does not list, without sending them', async () => {
    const beacon = env('beacon', generic.url);
    const { observation } = await beacon.reset({ seed: 4 });
    const sent = generic.callsTo('/step').length;
    const refused = await beacon.step('move up');
    expect(refused.info.invalidAction).toBe(
      '"move up" is not an admissible command here; pick one of the listed actions (e.g. "look").',
    );
    expect(refused.observation).toEqual(observation);
    expect(generic.callsTo('/step').length).toBe(sent);
    await beacon.close();
  });

  it('without a listing endpoint lists nothing, asks once, and lets the server judge', async () => {
    const bare = await startFakeGenericServer({ listing: 'none' });
    try {
      const beacon = env('beacon', bare.url);
      const { observation } = await beacon.reset({ seed: 1 });
      expect(observation.actions).toEqual([]);
      const result = await beacon.step('dance');
      expect(bare.callsTo('/step').at(-1)?.body).toMatchObject({ action: 'dance' });
      expect(result.observation.text).toBe('Unknown command "dance". Nothing happens.');
      await beacon.step('look');
      expect(bare.callsTo('/available_actions').map((c) => c.status)).toEqual([404]);
      expect((await beacon.step('')).info.invalidAction).toMatch(/empty command/);
      await beacon.close();
    } finally {
      await bare.close();
    }
  });

  it("turns the server's { error } answers into errors naming server and call", async () => {
    const beacon = env('beacon', generic.url);
    const error = await beacon
      .reset({ task: agentgymTask('beacon', 5000) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymServerError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^AgentGym beacon server at ${generic.url}: POST /reset failed on the server: "The game 5000 is not valid\\."`,
      ),
    );
    await beacon.close();
  });

  it('drops the episode when the connection drops mid-step, and resets again', async () => {
    const beacon = env('beacon', generic.url);
    await beacon.reset({ seed: 2 });
    const steps = generic.callsTo('/step').length;
    generic.faults.dropped = 1;
    const error = await beacon.step('look').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymHttpError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^AgentGym beacon server at ${generic.url}: POST /step could not reach the server`,
      ),
    );
    // The server may have stepped: a step is never sent twice.
    expect(generic.callsTo('/step').length).toBe(steps + 1);
    await expect(beacon.step('look')).rejects.toBeInstanceOf(EnvNotResetError);
    expect((await beacon.reset({ seed: 2 })).observation.actions).toContain('look');
    await beacon.close();
  });
});

describe('AgentGymGenericEnv, server dialects', () => {
  it('maze: routes under /maze, whether the URL names it or not, and resets by { game }', async () => {
    for (const url of [maze.url, `${maze.url}/maze/`]) {
      const walker = env('maze', url);
      const { info, observation } = await walker.reset({ task: agentgymTask('maze', 3) });
      expect(maze.callsTo('/maze/reset').at(-1)?.body).toEqual({ id: info.session, game: 3 });
      expect(maze.callsTo('/maze/available_actions').at(-1)?.query).toEqual({});
      expect(observation.actions).toHaveLength(5);
      await walker.close();
    }
    expect(maze.calls.every((call) => call.path.startsWith('/maze/'))).toBe(true);
  });

  it('babyai: reads the instruction after "Your goal:" and the actions from the text', async () => {
    const walker = env('babyai', babyai.url);
    const { observation } = await walker.reset({ task: agentgymTask('babyai', 40) });
    expect(observation.instruction).toBe(`${goal(40)}.`);
    expect(observation.actions).toEqual(actionsInText(observation.text));
    expect(observation.actions).toContain('move west');
    expect(babyai.callsTo('/available_actions')).toEqual([]);
    await walker.close();
  });

  it('tool servers: env_idx bodies, the goal as instruction, progress levels as step rewards', async () => {
    const weather = env('weather', tool.url);
    const index = 13;
    const { observation, info } = await weather.reset({ task: agentgymTask('weather', index) });
    expect(tool.callsTo('/create').at(-1)?.body).toEqual({ id: 0 });
    expect(tool.callsTo('/reset').at(-1)?.body).toEqual({ env_idx: info.session, id: index });
    expect(observation.instruction).toBe(goal(index));
    expect(observation.actions).toEqual([]);

    const refused = await weather.step('fly away');
    expect(refused.info.invalidAction).toMatch(/^the server refused "fly away": Format error/);
    expect(refused.observation).toEqual(observation);
    expect(refused.reward).toBe(0);

    const path = fakeBeaconPath(index);
    const results: StepResult[] = [];
    for (const action of path) results.push(await weather.step(action));
    const rewards = results.map((r) => r.reward);
    expect(rewards.every((r) => r > 0)).toBe(true);
    expect(rewards.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    expect(results.at(-1)).toMatchObject({ terminated: true, truncated: false });
    expect(results.at(-1)?.observation.text).toMatch(/^Observation: You reach the beacon\./);
    await weather.close();
    expect(tool.callsTo('/close').map((c) => c.status)).toEqual([404]);
  });

  it("tool servers: a failure is the server's HTTP 500, named with its call", async () => {
    const weather = env('weather', tool.url);
    await expect(weather.reset({ task: agentgymTask('weather', 4000) })).rejects.toThrow(
      new RegExp(`^AgentGym weather server at ${tool.url}: POST /reset answered HTTP 500`),
    );
    await weather.close();
  });

  it('refuses a reset that states no task, as a protocol mismatch', async () => {
    const craft = env('textcraft', babyai.url);
    const error = await craft.reset({ seed: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymProtocolError);
    expect((error as Error).message).toMatch(
      /POST \/reset answered a reset that states no task \(the textcraft server's version may differ\)/,
    );
    await craft.close();
  });
});

describe('actionsInText', () => {
  it('reads the quoted list at the end of an observation, and nothing where there is none', () => {
    expect(
      actionsInText(
        'A wall ahead.\nAvailable actions: ["turn left", "go to red ball 1", "toggle"]',
      ),
    ).toEqual(['turn left', 'go to red ball 1', 'toggle']);
    expect(actionsInText('Available actions: []')).toEqual([]);
    expect(actionsInText('A wall ahead.')).toEqual([]);
  });
});
