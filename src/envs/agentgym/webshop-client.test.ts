import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvNotResetError, EpisodeEndedError, TaskError } from '../../core/errors.ts';
import type { Observation, Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import type { StepResult } from '../env.ts';
import { AgentGymHttpError } from './errors.ts';
import { agentgymEntry } from './index.ts';
import { openSessionCount } from './open-sessions.ts';
import { agentgymTask } from './tasks.ts';
import {
  type FakeWebShopServer,
  fakeWebShopGoal,
  startFakeWebShopServer,
} from './testing/fake-webshop-server.ts';
import { AgentGymWebShopEnv, SEARCH_TEMPLATE } from './webshop-client.ts';

let fake: FakeWebShopServer;
beforeAll(async () => {
  fake = await startFakeWebShopServer();
});
afterAll(async () => {
  await fake.close();
});

const makeEnv = (options: Partial<ConstructorParameters<typeof AgentGymWebShopEnv>[0]> = {}) =>
  new AgentGymWebShopEnv({ url: fake.url, http: { backoffMs: 1 }, ...options });

/** Knows the fake's goals: search the title, open the product, pick the option, buy. */
const solve = async (
  observation: Observation,
  task: Task,
  history: readonly { action: string }[],
) => {
  const goal = fakeWebShopGoal(task.spec?.index as number);
  const actions = observation.actions ?? [];
  if (actions.includes(SEARCH_TEMPLATE)) return 'search[mug socks board]';
  if (actions.includes('click[buy now]')) {
    const picked = history.some((step) => step.action === `click[${goal.option}]`);
    return goal.option && !picked ? `click[${goal.option}]` : 'click[buy now]';
  }
  const product = `click[${goal.asin.toLowerCase()}]`;
  return actions.includes(product) ? product : 'click[next >]';
};

runEnvConformance(
  {
    name: 'agentgym:webshop (registry entry, 15-step limit)',
    makeEnv: () => agentgymEntry(`agentgym:webshop@${fake.url}`).make({}),
    task: agentgymTask('webshop', 3, fakeWebShopGoal(3).instruction),
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'agentgym:webshop without step limit, solved',
    makeEnv: () => makeEnv(),
    solve,
    maxSteps: 10,
  },
  { describe, it },
);

describe('AgentGymWebShopEnv', () => {
  it('creates one session, resets it to the task index and fills in the instruction', async () => {
    const env = makeEnv();
    const creates = fake.callsTo('/create').length;
    const first = await env.reset({ task: agentgymTask('webshop', 7) });
    const second = await env.reset({ task: agentgymTask('webshop', 8) });
    expect(fake.callsTo('/create').length).toBe(creates + 1);
    expect(fake.callsTo('/reset').at(-1)?.body).toEqual({
      env_idx: second.info.session,
      session_id: 8,
    });
    expect(first.info.session).toBe(second.info.session);
    expect(first.observation.instruction).toBe(fakeWebShopGoal(7).instruction);
    expect(first.info.task).toMatchObject({
      id: 'agentgym:webshop/7',
      env: 'agentgym:webshop',
      instruction: fakeWebShopGoal(7).instruction,
      spec: { index: 7 },
    });
    expect(first.observation.text).toContain('[SEP] Search');
    expect(first.observation.actions).toEqual([SEARCH_TEMPLATE]);
    await env.close();
  });

  it('lists the clickables the server can act on and never sends refused actions', async () => {
    const env = makeEnv();
    await env.reset({ task: agentgymTask('webshop', 2) });
    const steps = fake.callsTo('/step').length;
    const notHere = await env.step('click[Buy Now]');
    expect(notHere.info.invalidAction).toMatch(/no \[Buy Now\] on this page/);
    expect((await env.step('search[]')).info.invalidAction).toBe('search[] needs a query.');
    expect(fake.callsTo('/step').length).toBe(steps);

    const results = await env.step('search[travel mug]');
    expect(results.observation.actions).toEqual([
      'click[back to search]',
      'click[next >]',
      'click[b0fake0003]',
      'click[b0fake0001]',
      'click[b0fake0002]',
    ]);
    const searchAgain = await env.step('search[socks]');
    expect(searchAgain.info.invalidAction).toMatch(/no search bar/);
    expect(searchAgain.observation).toEqual(results.observation);

    // Case does not matter, as on the server; "X-Large" has capitals, so the server can't click it.
    const item = await env.step('click[B0FAKE0003]');
    expect(item.observation.text).toContain('Steel travel mug');
    expect(item.observation.actions).toContain('click[12 oz]');
    expect(item.observation.actions?.some((a) => /x-large/i.test(a))).toBe(false);
    const sent = fake.callsTo('/step').length;
    expect((await env.step('click[X-Large]')).info.invalidAction).toMatch(/no \[X-Large\]/);
    expect(fake.callsTo('/step').length).toBe(sent);
    expect(fake.callsTo('/step').at(-1)?.body).toMatchObject({ action: 'click[b0fake0003]' });
    await env.close();
  });

  it('ends the episode on purchase with the server reward and no further actions', async () => {
    const env = makeEnv();
    const task = agentgymTask('webshop', 0);
    let { observation } = await env.reset({ task });
    const history: { action: string }[] = [];
    let result: StepResult | undefined;
    while (!result?.terminated && history.length < 10) {
      const action = await solve(observation, task, history);
      result = await env.step(action);
      history.push({ action });
      observation = result.observation;
    }
    expect(history.map((h) => h.action)).toEqual([
      'search[mug socks board]',
      'click[b0fake0001]',
      'click[small]',
      'click[buy now]',
    ]);
    expect(result?.terminated).toBe(true);
    expect(result?.reward).toBe(1);
    expect(result?.truncated).toBe(false);
    expect(result?.observation.text).toContain('Thank you for shopping with us!');
    expect(result?.observation.actions).toEqual([]);
    await expect(env.step('click[back to search]')).rejects.toBeInstanceOf(EpisodeEndedError);
    await env.close();
  });

  it('refuses tasks it cannot run, naming why', async () => {
    const env = makeEnv();
    await expect(
      env.reset({ task: { ...agentgymTask('webshop', 1), env: 'webshop' } }),
    ).rejects.toThrow(TaskError);
    await expect(env.reset({ task: { ...agentgymTask('webshop', 1), spec: {} } })).rejects.toThrow(
      /no server index.*synthetic env/,
    );
    await expect(env.reset({ task: agentgymTask('webshop', 99_999) })).rejects.toThrow(
      /POST \/reset answered HTTP 500/,
    );
    await env.close();
  });

  it('closes its session on close(), once, and untracks it', async () => {
    const env = makeEnv();
    const before = openSessionCount();
    const { info } = await env.reset({ seed: 4 });
    expect(fake.openSessions()).toContain(info.session);
    expect(openSessionCount()).toBe(before + 1);
    const closes = fake.callsTo('/close').length;
    await env.close();
    await env.close();
    expect(fake.closed).toContain(info.session);
    expect(fake.openSessions()).not.toContain(info.session);
    expect(fake.callsTo('/close').length).toBe(closes + 1);
    expect(openSessionCount()).toBe(before);
  });

  it('closes quietly on an older server without /close, and warns when the server is gone', async () => {
    const old = await startFakeWebShopServer({ withClose: false });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const env = new AgentGymWebShopEnv({ url: old.url });
      await env.reset({ seed: 1 });
      await env.close();
      expect(old.callsTo('/close').map((c) => c.status)).toEqual([404]);

      const orphan = new AgentGymWebShopEnv({ url: old.url, http: { retries: 0 } });
      const { info } = await orphan.reset({ seed: 1 });
      await old.close();
      await orphan.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).toEqual(['AgentGymCloseWarning']);
      expect(warnings[0]?.message).toMatch(
        new RegExp(`POST /close could not reach the server.*Session ${info.session} may stay open`),
      );
    } finally {
      process.off('warning', onWarning);
      await old.close();
    }
  });

  it('names server and call when the server is too slow, and drops the episode', async () => {
    const env = makeEnv({ http: { timeoutMs: 100 } });
    await env.reset({ seed: 2 });
    fake.faults.delayMs = 400;
    try {
      await expect(env.step('search[mug]')).rejects.toThrow(
        `AgentGym webshop server at ${fake.url}: POST /step timed out after 100 ms`,
      );
    } finally {
      fake.faults.delayMs = 0;
    }
    await expect(env.step('search[mug]')).rejects.toBeInstanceOf(EnvNotResetError);
    expect((await env.reset({ seed: 2 })).observation.actions).toEqual([SEARCH_TEMPLATE]);
    await env.close();
  });

  it('rides out 503s, and fails clearly when nothing listens', async () => {
    const env = makeEnv();
    const creates = fake.callsTo('/create').length;
    fake.faults.unavailable = 2;
    await env.reset({ seed: 3 });
    expect(
      fake
        .callsTo('/create')
        .slice(creates)
        .map((c) => c.status),
    ).toEqual([503, 503, 200]);
    await env.close();

    const gone = await startFakeWebShopServer();
    await gone.close();
    const refused = new AgentGymWebShopEnv({ url: gone.url, http: { retries: 2, backoffMs: 1 } });
    const error = await refused.reset({ seed: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymHttpError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^AgentGym webshop server at ${gone.url}: POST /create could not reach the server \\(ECONNREFUSED\\) after 3 attempts`,
      ),
    );
    await refused.close();
  });
});
