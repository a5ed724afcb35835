import assert from 'node:assert/strict';
import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { isActionTemplate, type Observation, type Step, type Task } from '../core/types.ts';
import { fillTemplate } from './actions.ts';
import type { Env, StepResult } from './env.ts';

/** The env under test and how the suite may drive it. */
export interface ConformanceOptions {
  /** Shown in the test names. */
  name: string;
  /** A fresh env each call. */
  makeEnv: () => Env | Promise<Env>;
  /** A task the env can run, to check `reset({ task })`. */
  task?: Task;
  /** An action the env must reject. */
  invalidAction?: string;
  /**
   * A policy that ends episodes (terminated) within `maxSteps`. Without one, the suite walks
   * randomly through admissible actions and expects the walk to end.
   */
  solve?: (observation: Observation, task: Task, history: readonly Step[]) => Promise<string>;
  /** Steps allowed to reach the end of an episode (default 200). */
  maxSteps?: number;
}

/**
 * The test runner's two registration functions. Vitest's, Jest's, Mocha's and `node:test`'s
 * `describe` and `it` all fit; the suite asserts with `node:assert`, whose errors every runner reports.
 */
export interface TestRunner {
  /** Groups tests under a name. */
  describe(name: string, body: () => void): unknown;
  /** Registers one asynchronous test. */
  it(name: string, body: () => Promise<void>): unknown;
}

/**
 * The contract every env must pass (after Gymnasium's `check_env`): run it from a test file with
 * `runEnvConformance({ name, makeEnv }, { describe, it })`, passing your test runner's `describe`
 * and `it`. Real, synthetic and remote envs all go through it.
 */
export function runEnvConformance(options: ConformanceOptions, { describe, it }: TestRunner): void {
  const invalidAction = options.invalidAction ?? 'frobnicate[the moon]';
  const maxSteps = options.maxSteps ?? 200;

  const withEnv = async (body: (env: Env) => Promise<void>) => {
    const env = await options.makeEnv();
    try {
      await body(env);
    } finally {
      await env.close();
    }
  };

  /** A seeded walk: the policy if given, else a random admissible action. */
  const chooser = (seed: number, task: Task) => {
    const rng = new Rng(seed);
    const history: Step[] = [];
    return async (observation: Observation, previous?: Step): Promise<string> => {
      if (previous) history.push(previous);
      if (options.solve) return options.solve(observation, task, history);
      const actions = observation.actions ?? [];
      assert.ok(actions.length > 0, 'a walk needs admissible actions');
      const action = rng.pick(actions);
      if (!isActionTemplate(action)) return action;
      const words = task.instruction.split(/\s+/).filter((w) => w.length > 3);
      return fillTemplate(action, rng.sample(words, 3).join(' ') || 'item');
    };
  };

  const playEpisode = async (env: Env, seed: number) => {
    const { observation, info } = await env.reset({ seed });
    const choose = chooser(seed, info.task);
    const trace: Array<{ action: string } & StepResult> = [];
    let current = observation;
    for (let t = 0; t < maxSteps; t++) {
      const action = await choose(current, trace.at(-1));
      const result = await env.step(action);
      trace.push({ action, ...result });
      current = result.observation;
      if (result.terminated || result.truncated) break;
    }
    return { observation, task: info.task, trace };
  };

  describe(`${options.name}: Env conformance`, () => {
    it('reset gives an observation with text, instruction and actions, and the task', async () => {
      await withEnv(async (env) => {
        const { observation, info } = await env.reset({ seed: 0 });
        assert.equal(typeof observation.text, 'string');
        assert.ok(observation.text.length > 0, 'the observation has no text');
        assert.ok(observation.instruction.length > 0, 'the observation has no instruction');
        assert.ok(Array.isArray(observation.actions), 'the observation lists no actions');
        assert.ok((observation.actions?.length ?? 0) > 0, 'the observation lists no actions');
        assert.equal(info.task.env, env.name);
        assert.equal(info.task.instruction, observation.instruction);
      });
    });

    it('the same seed gives the same episode, in a fresh env too', async () => {
      const a = await (async () => {
        let out: unknown;
        await withEnv(async (env) => {
          out = await playEpisode(env, 11);
        });
        return out;
      })();
      let again: unknown;
      let other: unknown;
      await withEnv(async (env) => {
        again = await playEpisode(env, 11);
        other = await playEpisode(env, 12);
      });
      assert.deepStrictEqual(again, a, 'the same seed gave another episode');
      assert.notDeepStrictEqual(other, a, 'another seed gave the same episode');
    });

    it('different seeds draw different tasks', async () => {
      await withEnv(async (env) => {
        const instructions = new Set<string>();
        for (let seed = 0; seed < 10; seed++) {
          instructions.add((await env.reset({ seed })).observation.instruction);
        }
        assert.ok(instructions.size > 1, '10 seeds drew one task');
      });
    });

    if (options.task) {
      const task = options.task;
      it('reset({ task }) runs that task', async () => {
        await withEnv(async (env) => {
          const { observation, info } = await env.reset({ task, seed: 1 });
          assert.equal(info.task.id, task.id);
          assert.equal(observation.instruction, task.instruction);
        });
      });
    }

    it('an invalid action changes nothing, earns 0 and says why in info', async () => {
      await withEnv(async (env) => {
        const { observation } = await env.reset({ seed: 3 });
        const snapshot = structuredClone(observation);
        const result = await env.step(invalidAction);
        assert.equal(result.reward, 0);
        assert.equal(result.terminated, false);
        assert.equal(result.truncated, false);
        assert.equal(typeof result.info.invalidAction, 'string');
        assert.ok((result.info.invalidAction?.length ?? 0) > 0, 'info.invalidAction is empty');
        assert.deepStrictEqual(result.observation, snapshot);
        assert.deepStrictEqual(observation, snapshot);
        const malformed = await env.step('');
        assert.ok(malformed.info.invalidAction, 'an empty action is not flagged invalid');
        assert.deepStrictEqual(malformed.observation, snapshot);
      });
    });

    it('episodes end, and stepping after the end is a clear error until reset', async () => {
      await withEnv(async (env) => {
        const { trace } = await playEpisode(env, 5);
        const last = trace.at(-1);
        assert.ok(last, 'the episode took no step');
        assert.ok(last.terminated || last.truncated, `no end within ${maxSteps} steps`);
        assert.ok(!(last.terminated && last.truncated), 'terminated and truncated at once');
        if (options.solve)
          assert.equal(last.terminated, true, 'the solving policy should terminate');
        for (const step of trace.slice(0, -1)) {
          assert.ok(!(step.terminated || step.truncated), 'an episode went on after its end');
        }
        for (const step of trace) assert.ok(Number.isFinite(step.reward), `reward ${step.reward}`);
        await assert.rejects(env.step(trace[0]?.action ?? 'x'), EpisodeEndedError);
        const again = await env.reset({ seed: 5 });
        assert.ok(again.observation.text.length > 0, 'reset after the end gave no text');
      });
    });

    it('observations handed out are not changed by later steps', async () => {
      await withEnv(async (env) => {
        const { observation, info } = await env.reset({ seed: 8 });
        const snapshot = structuredClone(observation);
        const choose = chooser(8, info.task);
        await env.step(await choose(observation));
        assert.deepStrictEqual(observation, snapshot);
      });
    });

    it('step before reset is a clear error', async () => {
      await withEnv(async (env) => {
        await assert.rejects(env.step(invalidAction), EnvNotResetError);
      });
    });

    it('close() is idempotent and a closed env refuses to run', async () => {
      const env = await options.makeEnv();
      await env.reset({ seed: 0 });
      await env.close();
      await env.close();
      await assert.rejects(env.reset({ seed: 0 }), EnvClosedError);
      await assert.rejects(env.step(invalidAction), EnvClosedError);
    });
  });
}
