import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeEndedError } from '../../core/errors.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import { AgentGymAlfWorldEnv, NOTHING_HAPPENS } from './alfworld-client.ts';
import { AgentGymServerError } from './errors.ts';
import { agentgymEntry } from './index.ts';
import { agentgymTask } from './tasks.ts';
import {
  type FakeAlfWorldServer,
  fakeAlfWorldGame,
  startFakeAlfWorldServer,
} from './testing/fake-alfworld-server.ts';

let fake: FakeAlfWorldServer;
beforeAll(async () => {
  fake = await startFakeAlfWorldServer();
});
afterAll(async () => {
  await fake.close();
});

const makeEnv = (url = fake.url) => new AgentGymAlfWorldEnv({ url, http: { backoffMs: 1 } });

/** Knows the fake's games: fetch the object, carry it to its receptacle. */
const solve = async (observation: Observation, task: Task, history: readonly Step[]) => {
  const game = fakeAlfWorldGame(task.spec?.index as number);
  const take = `take ${game.object} from ${game.start}`;
  const put = `put ${game.object} in/on ${game.target}`;
  const actions = observation.actions ?? [];
  if (actions.includes(take)) return take;
  if (actions.includes(put)) return put;
  const holding = history.some((step) => step.action === take);
  return `go to ${holding ? game.target : game.start}`;
};

runEnvConformance(
  {
    name: 'agentgym:alfworld (registry entry, 50-step limit)',
    makeEnv: () => agentgymEntry(`agentgym:alfworld@${fake.url}`).make({}),
    task: agentgymTask('alfworld', 2421, 'put a apple in cabinet.'),
    invalidAction: 'fly to the moon',
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'agentgym:alfworld without step limit, solved',
    makeEnv: () => makeEnv(),
    solve,
    maxSteps: 8,
  },
  { describe, it },
);

describe('AgentGymAlfWorldEnv', () => {
  it('resets to the game index in the text world and reads the task line', async () => {
    const env = makeEnv();
    const { observation, info } = await env.reset({ task: agentgymTask('alfworld', 2425) });
    expect(fake.callsTo('/reset').at(-1)?.body).toEqual({
      id: info.session,
      game: 2425,
      world_type: 'Text',
    });
    expect(observation.text).toMatch(/^You are in the middle of a room\./);
    expect(observation.instruction).toBe('put a mug in fridge.');
    expect(info.task.instruction).toBe(observation.instruction);
    expect(info.taskType).toBe(fakeAlfWorldGame(2425).taskType);
    expect(observation.actions).toContain('go to countertop 1');
    await env.close();
  });

  it('sends admissible commands in the server spelling and refuses the rest unsent', async () => {
    const env = makeEnv();
    await env.reset({ task: agentgymTask('alfworld', 1) });
    const moved = await env.step('  Go To   Countertop 1 ');
    expect(fake.callsTo('/step').at(-1)?.body).toMatchObject({ action: 'go to countertop 1' });
    expect(moved.observation.text).toBe('On the countertop 1, you see a apple 1.');
    expect(moved.observation.actions).toContain('take apple 1 from countertop 1');
    const sent = fake.callsTo('/step').length;
    const refused = await env.step('take apple 2 from countertop 1');
    expect(refused.info.invalidAction).toMatch(/not an admissible command here/);
    expect(refused.observation).toEqual(moved.observation);
    expect(fake.callsTo('/step').length).toBe(sent);
    await env.close();
  });

  it('maps "Nothing happens." to an invalid action where the server lists no commands', async () => {
    const bare = await startFakeAlfWorldServer({ admissibleCommands: false });
    try {
      const env = makeEnv(bare.url);
      const { observation } = await env.reset({ task: agentgymTask('alfworld', 6) });
      expect(observation.actions).toEqual([]);
      const result = await env.step('dance with the mug');
      expect(bare.callsTo('/step').at(-1)?.body).toMatchObject({ action: 'dance with the mug' });
      expect(result.info.invalidAction).toContain(NOTHING_HAPPENS);
      expect(result.reward).toBe(0);
      expect(result.observation).toEqual(observation);
      expect((await env.step('go to countertop 1')).observation.text).toContain('countertop 1');
      await env.close();
    } finally {
      await bare.close();
    }
  });

  it("reports the server's own step limit as truncation, not termination", async () => {
    const short = await startFakeAlfWorldServer({ maxEpisodeSteps: 2 });
    try {
      const env = makeEnv(short.url);
      await env.reset({ task: agentgymTask('alfworld', 6) });
      const first = await env.step('look');
      expect(first.truncated || first.terminated).toBe(false);
      const second = await env.step('inventory');
      expect(second).toMatchObject({ reward: 0, terminated: false, truncated: true });
      expect(second.info.truncatedBy).toBe('server-step-limit');
      await expect(env.step('look')).rejects.toBeInstanceOf(EpisodeEndedError);
      await env.close();
    } finally {
      await short.close();
    }
  });

  it('turns an { error } answered with HTTP 200 into a typed error naming server and call', async () => {
    const env = makeEnv();
    const error = await env
      .reset({ task: agentgymTask('alfworld', 9000) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymServerError);
    expect((error as AgentGymServerError).serverMessage).toBe('list index out of range');
    expect((error as Error).message).toMatch(
      new RegExp(
        `^AgentGym alfworld server at ${fake.url}: POST /reset failed on the server: "list index out of range"`,
      ),
    );
    await env.close();
  });

  it('closes its session on close(), once; a server without /close is no problem', async () => {
    const env = makeEnv();
    const { info } = await env.reset({ seed: 1 });
    await env.close();
    await env.close();
    expect(fake.closed.filter((id) => id === info.session)).toHaveLength(1);
    expect(fake.callsTo('/close').at(-1)?.body).toEqual({ id: info.session });

    const original = await startFakeAlfWorldServer({ withClose: false });
    try {
      const old = makeEnv(original.url);
      await old.reset({ seed: 1 });
      await old.close();
      expect(original.callsTo('/close').map((c) => c.status)).toEqual([404]);
    } finally {
      await original.close();
    }
  });
});
