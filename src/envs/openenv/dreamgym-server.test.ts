/**
 * The OpenEnv client against dreamgym's own `serve` (whose OpenEnv routes are under /openenv),
 * over both transports: the Env conformance suite, episodes identical to the env played in
 * process, and what the server's session limit, idle reaping and shutdown look like to a client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { type ServedEnv, serveEnv } from '../../server/serve-env.ts';
import { fillTemplate } from '../actions.ts';
import { runEnvConformance } from '../conformance.ts';
import type { Env } from '../env.ts';
import { envEntry } from '../registry.ts';
import { OpenEnvCapacityError, OpenEnvConnectionError } from './errors.ts';
import { openenvEntry } from './index.ts';
import { OpenEnvEnv } from './openenv-env.ts';
import { openenvTask } from './tasks.ts';

let served: ServedEnv;
beforeAll(async () => {
  served = await serveEnv({ env: 'webshop', port: 0 });
});
afterAll(async () => {
  await served?.close();
});

const root = () => `${served.url}/openenv`;

runEnvConformance(
  {
    name: 'openenv@serve webshop (WebSocket)',
    makeEnv: () => openenvEntry(`openenv@${root()}`).make({}),
  },
  { describe, it },
);
runEnvConformance(
  {
    name: 'openenv+http@serve webshop',
    makeEnv: () => openenvEntry(`openenv+http@${root()}`).make({}),
  },
  { describe, it },
);

/** A seeded random action, a template filled with words of the instruction. */
function randomAction(rng: Rng, observation: Observation): string {
  const action = rng.pick(observation.actions ?? []);
  if (!isActionTemplate(action)) return action;
  const words = observation.instruction.split(/\s+/).filter((w) => w.length > 3);
  return fillTemplate(action, rng.sample(words, 2).join(' '));
}

/** An episode's observations, rewards and ends, played with seeded random actions. */
async function play(env: Env, reset: () => ReturnType<Env['reset']>, seed: number) {
  const rng = new Rng(seed);
  let { observation } = await reset();
  const trace: unknown[] = [observation];
  for (let t = 0; t < 20; t++) {
    const action = randomAction(rng, observation);
    const result = await env.step(action);
    observation = result.observation;
    trace.push({ action, ...result, info: { invalidAction: result.info.invalidAction } });
    if (result.terminated || result.truncated) break;
  }
  return trace;
}

describe('OpenEnv client against dreamgym serve', () => {
  it('episodes over the wire are the episodes of the env played in process', async () => {
    const local = envEntry('webshop').make({});
    for (const transport of ['openenv', 'openenv+http']) {
      const remote = openenvEntry(`${transport}@${root()}`).make({});
      try {
        for (const seed of [1, 2, 3]) {
          const task = openenvTask('openenv', seed);
          const overWire = await play(remote, () => remote.reset({ task }), seed);
          const inProcess = await play(local, () => local.reset({ seed }), seed);
          expect(overWire).toEqual(inProcess);
          expect(overWire.length).toBeGreaterThan(1);
        }
      } finally {
        await remote.close();
      }
    }
    await local.close();
  });

  it("a task's spec is the reset keywords: task_index picks the served split's task", async () => {
    const env = openenvEntry(`openenv@${root()}`).make({});
    try {
      const task = { ...openenvTask('openenv', 0), spec: { task_index: 5 } };
      const { observation, info } = await env.reset({ task });
      const expected = envEntry('webshop').tasks({}).tasks('train')[5];
      expect(observation.instruction).toBe(expected?.instruction);
      expect(info.task).toMatchObject({ id: task.id, instruction: expected?.instruction });
      expect(info.metadata).toMatchObject({ task_id: expected?.id });
    } finally {
      await env.close();
    }
  });

  it('the session limit is a capacity error with its numbers; the slot frees when the holder closes', async () => {
    const small = await serveEnv({ env: 'webshop', port: 0, maxSessions: 1 });
    const url = `${small.url}/openenv`;
    const holder = new OpenEnvEnv({ url });
    const refused = new OpenEnvEnv({ url, client: { capacityRetries: 1, backoffMs: 10 } });
    const later = new OpenEnvEnv({ url });
    try {
      await holder.reset({ seed: 0 });
      const error = await refused.reset({ seed: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenEnvCapacityError);
      expect(error).toMatchObject({ activeSessions: 1, maxSessions: 1 });
      await holder.close();
      // The server frees a session after closing its socket: the retries cover the gap.
      expect((await later.reset({ seed: 0 })).observation.text.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([holder.close(), refused.close(), later.close()]);
      await small.close();
    }
  });

  it('a session reaped as idle is a connection error naming why; the next reset opens a new one', async () => {
    const reaping = await serveEnv({ env: 'webshop', port: 0, idleTimeoutSeconds: 0.1 });
    const env = new OpenEnvEnv({ url: `${reaping.url}/openenv` });
    try {
      await env.reset({ seed: 0 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await expect(env.step('search[mug]')).rejects.toThrow(
        /step over WebSocket lost the connection to the server \(WebSocket closed with code 1000: session closed: idle for over 0\.1 s\)/,
      );
      expect((await env.reset({ seed: 0 })).observation.text.length).toBeGreaterThan(0);
      expect((await env.step('search[mug]')).observation.text).toContain('[Back to Search]');
    } finally {
      await env.close();
      await reaping.close();
    }
  });

  it('a server shut down mid-episode is a connection error at once', async () => {
    const stopping = await serveEnv({ env: 'webshop', port: 0 });
    const env = new OpenEnvEnv({ url: `${stopping.url}/openenv` });
    try {
      await env.reset({ seed: 0 });
      await stopping.close();
      const error = await env.step('search[mug]').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenEnvConnectionError);
      expect((error as Error).message).toMatch(/WebSocket closed with code 1001/);
    } finally {
      await env.close();
    }
  });

  it('a URL without the /openenv root says where OpenEnv lives on dreamgym serve', async () => {
    const env = new OpenEnvEnv({ url: served.url });
    try {
      await expect(env.reset({ seed: 0 })).rejects.toThrow(
        /for dreamgym serve, http:\/\/HOST:PORT\/openenv/,
      );
    } finally {
      await env.close();
    }
  });
});
