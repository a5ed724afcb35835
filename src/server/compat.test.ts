/**
 * Our own AgentGym clients against `dreamgym serve` (the same `serveEnv` the command runs) on a
 * loopback port: the clients were written against AgentGym's real servers, so passing here means
 * a trainer written for those servers can drive ours.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation, Task } from '../core/types.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { AgentGymAlfWorldEnv } from '../envs/agentgym/alfworld-client.ts';
import { agentgymTask } from '../envs/agentgym/tasks.ts';
import { AgentGymWebShopEnv } from '../envs/agentgym/webshop-client.ts';
import { runEnvConformance } from '../envs/conformance.ts';
import { envEntry } from '../envs/registry.ts';
import { BUTTONS } from '../envs/webshop/pages.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { WebShopExpert } from '../policy/experts/webshop-expert.ts';
import type { Policy } from '../policy/policy.ts';
import { runEpisode } from '../rl/episode.ts';
import { type ServedEnv, serveEnv } from './serve-env.ts';

/** Client task indices go straight to the server's train split. */
const splits = { train: { start: 0, end: 500 }, test: { start: 500, end: 600 } };
const record = join(mkdtempSync(join(tmpdir(), 'dreamgym-serve-')), 'served.jsonl');
let webshop: ServedEnv;
let household: ServedEnv;
beforeAll(async () => {
  // The server's step limit is above the clients' (AgentGym's 15 and 50), so clients cut
  // episodes off first, as AgentGym's evaluation does.
  webshop = await serveEnv({ env: 'webshop', port: 0, maxSteps: 100, record });
  household = await serveEnv({ env: 'household', port: 0, maxSteps: 100 });
});
afterAll(async () => {
  await webshop?.close();
  await household?.close();
});

runEnvConformance(
  {
    name: 'AgentGymWebShopEnv against dreamgym serve --env webshop',
    makeEnv: () => new TimeLimit(new AgentGymWebShopEnv({ url: webshop.url, splits }), 15),
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'AgentGymAlfWorldEnv against dreamgym serve --env household (/alfworld)',
    makeEnv: () =>
      new TimeLimit(new AgentGymAlfWorldEnv({ url: `${household.url}/alfworld`, splits }), 50),
  },
  { describe, it },
);

/**
 * The webshop expert through the WebShop protocol: clickables come back lowercased, so the
 * expert sees them in our webshop's spelling again (buttons, upper-case ASINs); `task` is the
 * served task, whose goal the expert reads.
 */
function expertThroughProtocol(task: Task): Policy {
  const expert = new WebShopExpert();
  const buttons = new Map(Object.values(BUTTONS).map((label) => [label.toLowerCase(), label]));
  const respell = (action: string) => {
    const label = /^click\[(.*)\]$/.exec(action)?.[1];
    if (label === undefined) return action;
    return `click[${buttons.get(label) ?? (/^b0/.test(label) ? label.toUpperCase() : label)}]`;
  };
  return {
    id: expert.id,
    act: (observation: Observation, context) =>
      expert.act(
        { ...observation, actions: (observation.actions ?? []).map(respell) },
        { ...context, task },
      ),
  };
}

describe('dreamgym serve, driven by our AgentGym WebShop client', () => {
  it("plays the expert's episode as the in-process env does, and records it", async () => {
    const index = 12;
    const task = envEntry('webshop').tasks({}).tasks('train')[index] as Task;
    const local = await runEpisode(envEntry('webshop').make({}), new WebShopExpert(), {
      task,
      seed: 0,
      provenance: 'real-online',
    });
    const remote = new AgentGymWebShopEnv({ url: webshop.url, splits });
    const served = await runEpisode(remote, expertThroughProtocol(task), {
      task: agentgymTask('webshop', index),
      seed: 0,
      provenance: 'real-online',
    });
    await remote.close();
    expect(served.steps.map((s) => s.action.toLowerCase())).toEqual(
      local.steps.map((s) => s.action.toLowerCase()),
    );
    expect(served.steps.at(-1)?.reward).toBeCloseTo(local.steps.at(-1)?.reward ?? Number.NaN, 10);
    expect(served.steps.at(-1)?.terminated).toBe(true);
    expect(served.initial.instruction).toBe(task.instruction);

    const recordedBefore = webshop.recorded();
    expect(recordedBefore).toBeGreaterThanOrEqual(1);
    await webshop.close();
    const trajectories = await readTrajectories(record);
    expect(trajectories).toHaveLength(recordedBefore);
    const mine = trajectories.find((t) => t.task.id === task.id && t.steps.at(-1)?.terminated);
    expect(mine).toMatchObject({ provenance: 'real-online', policyId: 'remote', env: 'webshop' });
    const lower = (steps: { action: string }[]) => steps.map((s) => s.action.toLowerCase());
    expect(lower(mine?.steps ?? [])).toEqual(lower(served.steps));
    webshop = await serveEnv({ env: 'webshop', port: 0 });
  });
});
