import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { initTf } from '../core/tf.ts';
import type { Trajectory } from '../core/types.ts';
import type { BranchPoint, Env, ResetOptions } from '../envs/env.ts';
import { BranchPoints } from '../experience/branch-points.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { rollout } from '../rl/rollout.ts';
import { type TrainerConfig, train } from '../rl/trainer.ts';
import { bufferBranchPoints } from './branching.ts';
import { envSetup, offlineData, syntheticFactory } from './experiment.ts';

beforeAll(() => initTf());

const setup = envSetup('webshop', { trainTasks: 60, testTasks: 10 });
let buffer: SqliteReplayBuffer;
let real: Trajectory[];
let makeSynthetic: () => Env;
beforeAll(async () => {
  buffer = SqliteReplayBuffer.open();
  real = await offlineData(setup, { episodes: 40, epsilon: 0.3, seed: 0 });
  await buffer.add(real);
  makeSynthetic = syntheticFactory(setup, buffer, await llmFreeModel('webshop', buffer));
});
afterAll(() => buffer.close());

/** `makeEnv` whose envs report every reset's options to `resets`. */
function watched(makeEnv: () => Env, resets: ResetOptions[]): () => Env {
  return () => {
    const env = makeEnv();
    return Object.assign(Object.create(env) as Env, {
      reset: (options?: ResetOptions) => {
        resets.push(options ?? {});
        return env.reset(options);
      },
      step: (action: string) => env.step(action),
      close: () => env.close(),
    });
  };
}

const small: Partial<TrainerConfig> = {
  algo: 'grpo',
  iterations: 1,
  tasksPerIteration: 4,
  groupSize: 3,
  epochs: 1,
  minibatchSize: 32,
  evalEvery: 0,
  seed: 5,
  maxEpisodeSteps: setup.maxEpisodeSteps,
};

async function policyWeights(policy: ChoicePolicy): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dg-branch-'));
  await policy.save(dir);
  return readFileSync(join(dir, 'policy.json'), 'utf8');
}

describe('BranchPoints', () => {
  it("holds every real decision up to each episode's end, and picks distinct ones", async () => {
    const points = await BranchPoints.fromBuffer(buffer, 'webshop');
    const decisions = real.reduce((n, t) => {
      const end = t.steps.findIndex((s) => s.terminated);
      return n + (end === -1 ? t.steps.length : end + 1);
    }, 0);
    expect(points.size).toBe(decisions);
    const picked = await points.pick(20, new Rng(1));
    expect(new Set(picked.map((p) => `${p.trajectory}#${p.step}`)).size).toBe(20);
    for (const p of picked) {
      const t = real.find((r) => r.id === p.trajectory) as Trajectory;
      expect(p.step).toBeLessThan(t.steps.length);
    }
    expect(await points.refresh()).toBe(0);
  });

  it('learns the real episodes the buffer gains, and only real ones', async () => {
    const own = SqliteReplayBuffer.open();
    await own.add(real.slice(0, 2));
    const points = await BranchPoints.fromBuffer(own, 'webshop');
    const before = points.size;
    await own.add([{ ...(real[2] as Trajectory), id: 'dreamt', provenance: 'synthetic' }]);
    expect(await points.refresh()).toBe(0);
    await own.add([real[2] as Trajectory]);
    expect(await points.refresh()).toBe(1);
    expect(points.size).toBeGreaterThan(before);
    await own.close();
  });

  it('with divergence, picks states where the policy departs from the real next action first', async () => {
    const points = await BranchPoints.fromBuffer(buffer, 'webshop');
    const picked = await points.pick(5, new Rng(2), 'divergence', {
      // A "policy" that repeats the real action except at the start of an episode.
      choose: async (s) => (s.from.step === 0 ? 'click[nothing]' : s.realAction),
    });
    expect(picked.every((p) => p.step === 0)).toBe(true);
  });
});

describe('branched rollouts in training', () => {
  it('starts that share of the groups from real states, a group sharing one branch state', async () => {
    const resets: ResetOptions[] = [];
    const { branchPoints } = await bufferBranchPoints(
      buffer,
      'webshop',
      new ChoicePolicy({ seed: 1 }),
    );
    const [metrics] = await train(
      {
        policy: new ChoicePolicy({ seed: 1 }),
        makeEnv: watched(makeSynthetic, resets),
        trainTasks: setup.trainTasks,
        provenance: 'synthetic',
        branchPoints,
      },
      { ...small, branching: { share: 0.5, horizon: 3 } },
    );
    const branched = resets.filter((r) => r.from).map((r) => r.from as BranchPoint);
    expect(branched).toHaveLength(2 * 3);
    expect(resets.filter((r) => r.task)).toHaveLength(2 * 3);
    const groups = new Map<string, number>();
    for (const b of branched) {
      const key = `${b.trajectory}#${b.step}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    expect([...groups.values()]).toEqual([3, 3]);
    expect(metrics?.rollout.branched).toBe(6);
  });

  it('cuts continuations at the horizon; GRPO leaves them out, PPO bootstraps them', async () => {
    const policy = new ChoicePolicy({ seed: 1 });
    const from = real
      .flatMap((t) => t.steps.map((_, step) => ({ trajectory: t.id, step, t })))
      .find(({ t, step }) => t.steps.length - step >= 4) as {
      trajectory: string;
      step: number;
    };
    const episodes = await rollout({
      makeEnv: makeSynthetic,
      policy,
      tasks: [],
      branches: [{ from: { trajectory: from.trajectory, step: from.step }, horizon: 1 }],
      groupSize: 4,
      seed: 1,
      provenance: 'synthetic',
    });
    expect(episodes).toHaveLength(4);
    for (const e of episodes) {
      expect(e.groupId).toBe(`from:${from.trajectory}#${from.step}`);
      expect(e.steps).toHaveLength(1);
      // The decision was made after the real steps before the branch.
      expect(e.steps[0]?.history).toHaveLength(from.step);
      expect(e.steps[0]?.observations).toHaveLength(from.step);
    }
    const cut = episodes.filter((e) => e.trajectory.steps[0]?.info?.truncatedBy === 'horizon');
    expect(cut.length).toBeGreaterThan(0);
    for (const e of cut) {
      expect(e.trajectory.steps[0]?.truncated).toBe(true);
      expect(e.bootstrapValue).not.toBe(0);
    }

    // One sample a minibatch: the minibatches count the decisions learnt from.
    const { branchPoints } = await bufferBranchPoints(buffer, 'webshop', policy);
    const io = { policy, makeEnv: makeSynthetic, trainTasks: setup.trainTasks, branchPoints };
    const all = {
      ...small,
      minibatchSize: 1,
      dropUninformativeGroups: false,
      branching: { share: 1, horizon: 1 },
    };
    const [grpo] = await train(io, all);
    const [ppo] = await train(io, { ...all, algo: 'ppo' });
    expect(grpo?.rollout.steps).toBe(12);
    expect(grpo?.rollout.horizonCut).toBeGreaterThan(0);
    expect(grpo?.update.minibatches).toBe(12 - (grpo?.rollout.horizonCut ?? 0));
    expect(ppo?.rollout.horizonCut).toBeGreaterThan(0);
    expect(ppo?.update.minibatches).toBe(12);
  });

  it('with share 0 trains exactly as without branching', async () => {
    const a = new ChoicePolicy({ seed: 1 });
    const b = new ChoicePolicy({ seed: 1 });
    const io = { makeEnv: makeSynthetic, trainTasks: setup.trainTasks, provenance: 'synthetic' };
    await train({ ...io, policy: a } as Parameters<typeof train>[0], small);
    await train({ ...io, policy: b } as Parameters<typeof train>[0], {
      ...small,
      branching: { share: 0, horizon: 2 },
    });
    expect(await policyWeights(a)).toBe(await policyWeights(b));
  });

  it('refuses a share without branch points, and a bad share or horizon', async () => {
    const io = { policy: new ChoicePolicy({ seed: 1 }), makeEnv: makeSynthetic, trainTasks: [] };
    await expect(train(io, { ...small, branching: { share: 0.5, horizon: 3 } })).rejects.toThrow(
      /give the trainer branchPoints/,
    );
    await expect(train(io, { ...small, branching: { share: 2, horizon: 3 } })).rejects.toThrow(
      ConfigError,
    );
    await expect(train(io, { ...small, branching: { share: 0.5, horizon: 0 } })).rejects.toThrow(
      /branching.horizon must be a positive integer/,
    );
  });
});
