/**
 * The OpenEnv client against a server that speaks OpenEnv's protocol the way OpenEnv's own
 * Python servers do (testing/openenv_server.py: FastAPI + uvicorn, stateless HTTP, one env per
 * WebSocket session, one session at most, typed actions validated by Pydantic).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvNotResetError } from '../../core/errors.ts';
import { runEnvConformance } from '../conformance.ts';
import type { TimeLimit } from '../wrappers/time-limit.ts';
import { OpenEnvCapacityError, OpenEnvConnectionError, OpenEnvServerError } from './errors.ts';
import { openenvEntry } from './index.ts';
import { OpenEnvEnv } from './openenv-env.ts';
import { openenvTask } from './tasks.ts';
import { type PythonOpenEnvServer, startPythonOpenEnvServer } from './testing/python-server.ts';

let server: PythonOpenEnvServer;
beforeAll(async () => {
  server = await startPythonOpenEnvServer({ maxSessions: 1 });
}, 40_000);
afterAll(async () => {
  await server?.stop();
});

const family = 'openenv:guess';
const guessEnv = (client: ConstructorParameters<typeof OpenEnvEnv>[0]['client'] = {}) =>
  new OpenEnvEnv({ url: server.url, family, client });

runEnvConformance(
  {
    name: 'openenv:guess@python (WebSocket)',
    makeEnv: () => openenvEntry(`${family}@${server.url}`).make({}),
  },
  { describe, it },
);

describe('OpenEnv client against a Python OpenEnv server', () => {
  it('plays by its schema: text becomes {"guess": int}, goal and legal_actions become the observation', async () => {
    const env = openenvEntry(`${family}@${server.url}`).make({});
    try {
      const { observation, info } = await env.reset({ task: openenvTask(family, 3) });
      expect(observation.instruction).toMatch(/^Find the secret whole number from 1 to \d+/);
      expect(info.task).toMatchObject({ id: 'openenv:guess/seed-3', env: family });
      expect(info.task.instruction).toBe(observation.instruction);
      expect(observation.text).toContain('feedback: Make your first guess');
      expect(observation.text).toContain('guesses_left: 6');
      const upper = Number(/to (\d+)/.exec(observation.instruction)?.[1]);
      expect(observation.actions).toEqual(Array.from({ length: upper }, (_, i) => String(i + 1)));
      // Binary search: the server's "higher"/"lower" leads to the secret within its 6 guesses.
      let [low, high] = [1, upper];
      for (let t = 0; t < 6; t++) {
        const guess = Math.floor((low + high) / 2);
        const result = await env.step(String(guess));
        expect(result.observation.actions).not.toContain(String(guess));
        if (result.terminated) {
          expect(result.reward).toBe(1);
          expect(result.observation.text).toContain(`${guess} is right!`);
          return;
        }
        expect(result.reward).toBe(0);
        if (result.observation.text.includes('go higher')) low = guess + 1;
        else high = guess - 1;
      }
      expect.unreachable('binary search did not find the number in 6 guesses');
    } finally {
      await env.close();
    }
  });

  it("reads the server's state of the episode", async () => {
    const env = guessEnv();
    try {
      await env.reset({ seed: 1 });
      await env.step('1');
      expect(await env.state()).toMatchObject({ step_count: 1, guesses_left: 5 });
    } finally {
      await env.close();
    }
  });

  it('an action the server rejects (VALIDATION_ERROR) or that is no whole number is invalid: nothing changes', async () => {
    const env = guessEnv();
    try {
      const { observation } = await env.reset({ seed: 2 });
      const rejected = await env.step('999');
      expect(rejected.info.invalidAction).toBe(
        'the server rejected the action: guess: Input should be less than or equal to 100',
      );
      expect(rejected).toMatchObject({ reward: 0, terminated: false, truncated: false });
      expect(rejected.observation).toEqual(observation);
      const notANumber = await env.step('seven');
      expect(notANumber.info.invalidAction).toBe(
        '"seven" is not a whole number, and this server\'s action is {"guess": <a whole number>}.',
      );
      // The session lived through both: the next guess is the game's first.
      expect((await env.step('1')).observation.text).toContain('guesses_left: 5');
    } finally {
      await env.close();
    }
  });

  it("the env's own failure (EXECUTION_ERROR) is a server error; the episode is lost, the session is not", async () => {
    const env = guessEnv();
    try {
      const task = { ...openenvTask(family, 4), spec: { seed: 4, fail_on_guess: 2 } };
      await env.reset({ task });
      const failure = await env.step('2').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenEnvServerError);
      expect((failure as OpenEnvServerError).code).toBe('EXECUTION_ERROR');
      expect((failure as Error).message).toMatch(
        /OpenEnv server at http:\/\/127\.0\.0\.1:\d+: step over WebSocket failed on the server \(EXECUTION_ERROR\): "the env crashed on guess 2 \(fail_on_guess\)"\. The env raised while handling it: see the server's log/,
      );
      await expect(env.step('3')).rejects.toBeInstanceOf(EnvNotResetError);
      const broken = { ...task, spec: { seed: 4, fail_reset: true } };
      await expect(env.reset({ task: broken })).rejects.toThrow(
        /reset over WebSocket failed on the server \(EXECUTION_ERROR\): "reset failed on purpose \(fail_reset\)"\. The env raised while resetting: check the task's reset keywords/,
      );
      expect((await env.reset({ task })).observation.text).toContain('guesses_left: 6');
    } finally {
      await env.close();
    }
  });

  it('a full server (CAPACITY_REACHED) is a capacity error naming the limit and the fix, after retries', async () => {
    const holder = guessEnv();
    const second = guessEnv({ capacityRetries: 2, backoffMs: 20 });
    try {
      await holder.reset({ seed: 0 });
      const refusal = await second.reset({ seed: 0 }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(OpenEnvCapacityError);
      expect(refusal).toMatchObject({ activeSessions: 1, maxSessions: 1 });
      expect((refusal as Error).message).toMatch(
        /reset over WebSocket was refused: the server has no free session \(1 of 1 in use\)\. Each open env holds one session until close\(\).*max_concurrent_envs/,
      );
      await holder.close();
      // close() waits for the server to end the session, which OpenEnv frees before closing.
      const freed = guessEnv({ capacityRetries: 0 });
      expect((await freed.reset({ seed: 0 })).observation.instruction).toMatch(/^Find/);
      await freed.close();
    } finally {
      await holder.close();
      await second.close();
    }
  });

  it("over HTTP, OpenEnv's stateless /step fails naming the WebSocket transport", async () => {
    const env = openenvEntry(`openenv+http:guess@${server.url}`).make({}) as TimeLimit;
    try {
      const { observation } = await env.reset({ seed: 5 });
      expect(observation.instruction).toMatch(/^Find/);
      await expect(env.step('1')).rejects.toThrow(
        /POST \/step failed on the server \(HTTP 500\): "step before reset: this env has no game yet"\. .*use the WebSocket transport \(openenv@URL\)/,
      );
    } finally {
      await env.close();
    }
  });
});

describe('OpenEnv client when the server dies', () => {
  it('a server killed mid-episode is a connection error at once, never a hang; the next reset cannot connect', async () => {
    const doomed = await startPythonOpenEnvServer();
    const env = new OpenEnvEnv({ url: doomed.url, family });
    try {
      await env.reset({ seed: 6 });
      await env.step('1');
      doomed.process.kill('SIGKILL');
      await new Promise((resolve) => doomed.process.once('exit', resolve));
      const started = Date.now();
      const lost = await env.step('2').catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(lost).toBeInstanceOf(OpenEnvConnectionError);
      expect((lost as Error).message).toMatch(
        /step over WebSocket lost the connection to the server \(WebSocket closed with code 1006\); the episode in progress is lost\. The server stopped, restarted, or ended the session/,
      );
      await expect(env.step('3')).rejects.toBeInstanceOf(EnvNotResetError);
      await expect(env.reset({ seed: 6 })).rejects.toThrow(
        /reset over WebSocket could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws \(ECONNREFUSED\)\. Check that the OpenEnv server is running/,
      );
    } finally {
      await env.close();
      await doomed.stop();
    }
  }, 40_000);
});
