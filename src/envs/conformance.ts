import { describe, expect, it } from 'vitest';
import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { isActionTemplate, type Observation, type Step, type Task } from '../core/types.ts';
import { fillTemplate } from './actions.ts';
import type { Env, StepResult } from './env.ts';

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
 * The contract every env must pass (after Gymnasium's `check_env`): run it from a test file with
 * `runEnvConformance({ name, makeEnv })`. Real, synthetic and remote envs all go through it.
 */
export function runEnvConformance(options: ConformanceOptions): void {
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
      expect(actions.length, 'a walk needs admissible actions').toBeGreaterThan(0);
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
        expect(typeof observation.text).toBe('string');
        expect(observation.text.length).toBeGreaterThan(0);
        expect(observation.instruction.length).toBeGreaterThan(0);
        expect(Array.isArray(observation.actions)).toBe(true);
        expect(observation.actions?.length).toBeGreaterThan(0);
        expect(info.task.env).toBe(env.name);
        expect(info.task.instruction).toBe(observation.instruction);
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
      expect(again).toEqual(a);
      expect(other).not.toEqual(a);
    });

    it('different seeds draw different tasks', async () => {
      await withEnv(async (env) => {
        const instructions = new Set<string>();
        for (let seed = 0; seed < 10; seed++) {
          instructions.add((await env.reset({ seed })).observation.instruction);
        }
        expect(instructions.size).toBeGreaterThan(1);
      });
    });

    if (options.task) {
      const task = options.task;
      it('reset({ task }) runs that task', async () => {
        await withEnv(async (env) => {
          const { observation, info } = await env.reset({ task, seed: 1 });
          expect(info.task.id).toBe(task.id);
          expect(observation.instruction).toBe(task.instruction);
        });
      });
    }

    it('an invalid action changes nothing, earns 0 and says why in info', async () => {
      await withEnv(async (env) => {
        const { observation } = await env.reset({ seed: 3 });
        const snapshot = structuredClone(observation);
        const result = await env.step(invalidAction);
        expect(result.reward).toBe(0);
        expect(result.terminated).toBe(false);
        expect(result.truncated).toBe(false);
        expect(typeof result.info.invalidAction).toBe('string');
        expect(result.info.invalidAction?.length).toBeGreaterThan(0);
        expect(result.observation).toEqual(snapshot);
        expect(observation).toEqual(snapshot);
        const malformed = await env.step('');
        expect(malformed.info.invalidAction).toBeTruthy();
        expect(malformed.observation).toEqual(snapshot);
      });
    });

    it('episodes end, and stepping after the end is a clear error until reset', async () => {
      await withEnv(async (env) => {
        const { trace } = await playEpisode(env, 5);
        const last = trace.at(-1);
        expect(last, 'the episode took no step').toBeDefined();
        expect(last?.terminated || last?.truncated, `no end within ${maxSteps} steps`).toBe(true);
        expect(last?.terminated && last?.truncated).toBe(false);
        if (options.solve)
          expect(last?.terminated, 'the solving policy should terminate').toBe(true);
        for (const step of trace.slice(0, -1)) {
          expect(step.terminated || step.truncated).toBe(false);
        }
        for (const step of trace) expect(Number.isFinite(step.reward)).toBe(true);
        await expect(env.step(trace[0]?.action ?? 'x')).rejects.toBeInstanceOf(EpisodeEndedError);
        const again = await env.reset({ seed: 5 });
        expect(again.observation.text.length).toBeGreaterThan(0);
      });
    });

    it('observations handed out are not changed by later steps', async () => {
      await withEnv(async (env) => {
        const { observation, info } = await env.reset({ seed: 8 });
        const snapshot = structuredClone(observation);
        const choose = chooser(8, info.task);
        await env.step(await choose(observation));
        expect(observation).toEqual(snapshot);
      });
    });

    it('step before reset is a clear error', async () => {
      await withEnv(async (env) => {
        await expect(env.step(invalidAction)).rejects.toBeInstanceOf(EnvNotResetError);
      });
    });

    it('close() is idempotent and a closed env refuses to run', async () => {
      const env = await options.makeEnv();
      await env.reset({ seed: 0 });
      await env.close();
      await env.close();
      await expect(env.reset({ seed: 0 })).rejects.toBeInstanceOf(EnvClosedError);
      await expect(env.step(invalidAction)).rejects.toBeInstanceOf(EnvClosedError);
    });
  });
}
