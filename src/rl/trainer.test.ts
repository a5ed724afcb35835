import { appendFileSync, mkdtempSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initTf } from '../core/tf.ts';
import { runEnvConformance } from '../envs/conformance.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { ADVANTAGE_ESTIMATORS } from './advantages.ts';
import { completeCheckpoint } from './checkpoint.ts';
import { frozenReference, policyReference } from './reference.ts';
import { PickBanditEnv } from './testing/bandit-env.ts';
import { evaluate, train } from './trainer.ts';

beforeAll(() => initTf());

runEnvConformance(
  { name: 'pick-bandit (test env)', makeEnv: () => new PickBanditEnv() },
  { describe, it },
);

const tasks = PickBanditEnv.tasks(30);
const makeEnv = () => new PickBanditEnv();
/** A policy's saved weights, as text: equal texts are bit-identical weights. */
async function weights(policy: ChoicePolicy): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dg-w-'));
  await policy.save(dir);
  return readFileSync(join(dir, 'policy.json'), 'utf8');
}

/** Every listed action of each task's first page, as decisions to score. */
async function decisionsOf(of: readonly (typeof tasks)[number][]) {
  const out = [];
  for (const task of of) {
    const { observation } = await new PickBanditEnv().reset({ task });
    for (const action of observation.actions ?? []) out.push({ observation, history: [], action });
  }
  return out;
}

const small = {
  iterations: 12,
  tasksPerIteration: 10,
  groupSize: 4,
  epochs: 4,
  minibatchSize: 32,
  evalEvery: 0,
  seed: 3,
};

describe('trainer', () => {
  it('the choice policy learns a text bandit to ≥ 95% of optimal with GRPO', async () => {
    const policy = new ChoicePolicy({ seed: 1 });
    const before = await evaluate(policy, makeEnv, tasks);
    await train({ policy, makeEnv, trainTasks: tasks }, { ...small, algo: 'grpo' });
    const after = await evaluate(policy, makeEnv, tasks);
    expect(before.successRate).toBeLessThan(0.6);
    expect(after.successRate).toBeGreaterThanOrEqual(0.95);
  });

  it('and with PPO (GAE and the value head)', async () => {
    const policy = new ChoicePolicy({ seed: 1 });
    await train({ policy, makeEnv, trainTasks: tasks }, { ...small, algo: 'ppo', iterations: 15 });
    expect((await evaluate(policy, makeEnv, tasks)).successRate).toBeGreaterThanOrEqual(0.95);
  });

  it('takes its advantage estimator from the registry by name, and names the known ones', async () => {
    const gae = vi.spyOn(ADVANTAGE_ESTIMATORS, 'gae');
    const grpo = vi.spyOn(ADVANTAGE_ESTIMATORS, 'grpo');
    await train(
      { policy: new ChoicePolicy({ seed: 1 }), makeEnv, trainTasks: tasks },
      { ...small, algo: 'grpo', advantages: 'gae', iterations: 2 },
    );
    expect([gae.mock.calls.length, grpo.mock.calls.length]).toEqual([2, 0]);
    await train(
      { policy: new ChoicePolicy({ seed: 1 }), makeEnv, trainTasks: tasks },
      { ...small, algo: 'grpo', iterations: 1 },
    );
    expect([gae.mock.calls.length, grpo.mock.calls.length]).toEqual([2, 1]);
    vi.restoreAllMocks();
    const unknown = train(
      { policy: new ChoicePolicy({ seed: 1 }), makeEnv, trainTasks: tasks },
      { ...small, algo: 'grpo', advantages: 'vtrace' as never, iterations: 1 },
    );
    await expect(unknown).rejects.toThrow(
      /unknown advantage estimator "vtrace"; available: gae, grpo/,
    );
  });

  it('writes metrics per iteration and resumes from its checkpoint to the same result', async () => {
    const config = { ...small, algo: 'grpo' as const, iterations: 4, evalEvery: 2 };
    const straightDir = mkdtempSync(join(tmpdir(), 'dreamgym-train-'));
    const straight = new ChoicePolicy({ seed: 2 });
    const io = { makeEnv, trainTasks: tasks, makeEvalEnv: makeEnv, evalTasks: tasks };
    const full = await train({ ...io, policy: straight, outDir: straightDir }, config);

    const resumedDir = mkdtempSync(join(tmpdir(), 'dreamgym-train-'));
    const first = new ChoicePolicy({ seed: 2 });
    await train({ ...io, policy: first, outDir: resumedDir }, { ...config, iterations: 2 });
    const reloaded = await ChoicePolicy.load(join(resumedDir, 'checkpoint'));
    const rest = await train({ ...io, policy: reloaded, outDir: resumedDir, resume: true }, config);

    expect(rest.map((m) => m.iteration)).toEqual([2, 3]);
    expect(rest.at(-1)?.rollout).toEqual(full.at(-1)?.rollout);
    expect(rest.at(-1)?.eval).toEqual(full.at(-1)?.eval);
    // Exact: the resumed run ends with the uninterrupted run's weights, to the last bit.
    const [a, b] = [mkdtempSync(join(tmpdir(), 'dg-a-')), mkdtempSync(join(tmpdir(), 'dg-b-'))];
    await straight.save(a);
    await reloaded.save(b);
    expect(readFileSync(join(b, 'policy.json'), 'utf8')).toBe(
      readFileSync(join(a, 'policy.json'), 'utf8'),
    );
    const lines = readFileSync(join(resumedDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.iteration)).toEqual([0, 1, 2, 3]);
    expect(lines[1].eval.episodes).toBe(30);
    expect(Object.keys(lines[0].seconds)).toEqual(['collect', 'advantages', 'update', 'evaluate']);
  });

  it('resumes from checkpoint.old after a crash between the renames, without duplicate metrics', async () => {
    const config = { ...small, algo: 'grpo' as const, iterations: 4, evalEvery: 2 };
    const io = { makeEnv, trainTasks: tasks, makeEvalEnv: makeEnv, evalTasks: tasks };
    const straight = await train(
      { ...io, policy: new ChoicePolicy({ seed: 2 }), outDir: mkdtempSync(join(tmpdir(), 'dg-')) },
      config,
    );
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-train-crash-'));
    await train(
      { ...io, policy: new ChoicePolicy({ seed: 2 }), outDir: dir },
      { ...config, iterations: 2 },
    );
    // The crash: checkpoint/ moved aside, the new one not yet in place; and a metrics line for
    // iteration 2 written before its checkpoint.
    renameSync(join(dir, 'checkpoint'), join(dir, 'checkpoint.old'));
    appendFileSync(join(dir, 'metrics.jsonl'), `${JSON.stringify({ iteration: 2 })}\n`);
    const found = completeCheckpoint(join(dir, 'checkpoint'));
    expect(found).toBe(join(dir, 'checkpoint.old'));
    const reloaded = await ChoicePolicy.load(found as string);
    const rest = await train({ ...io, policy: reloaded, outDir: dir, resume: true }, config);
    expect(rest.map((m) => m.iteration)).toEqual([2, 3]);
    expect(rest.at(-1)?.rollout).toEqual(straight.at(-1)?.rollout);
    const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).iteration)).toEqual([0, 1, 2, 3]);
  });

  it('counts env steps exactly and never exceeds a real-interaction budget', async () => {
    let stepped = 0;
    const counting = () => {
      const env = new PickBanditEnv();
      const step = env.step.bind(env);
      env.step = (action: string) => {
        stepped++;
        return step(action);
      };
      return env;
    };
    const policy = new ChoicePolicy({ seed: 4 });
    const history = await train(
      { policy, makeEnv: counting, trainTasks: tasks },
      {
        algo: 'grpo',
        iterations: 100,
        tasksPerIteration: 10,
        groupSize: 4,
        maxEnvSteps: 95,
        maxEpisodeSteps: 1,
        evalEvery: 0,
      },
    );
    expect(history.at(-1)?.envSteps).toBe(stepped);
    expect(stepped).toBeLessThanOrEqual(95);
    expect(stepped).toBe(92);
  });

  it('leaves episodes with an unjudged ending out of the update, and counts them', async () => {
    // The right pick ends unjudged with a guessed reward; the wrong ones are judged failures.
    const guessing = (unjudged: boolean) => () => {
      const env = new PickBanditEnv();
      const step = env.step.bind(env);
      env.step = async (action: string) => {
        const result = await step(action);
        return result.reward === 1
          ? { ...result, reward: 0.5, info: { ...result.info, unjudged } }
          : result;
      };
      return env;
    };
    const config = { ...small, algo: 'grpo' as const, iterations: 3, entropyCoef: 0 };
    const untouched = await weights(new ChoicePolicy({ seed: 1 }));

    const left = new ChoicePolicy({ seed: 1 });
    const history = await train(
      { policy: left, makeEnv: guessing(true), trainTasks: tasks },
      config,
    );
    expect(history.every((m) => m.rollout.unjudged > 0)).toBe(true);
    expect(history.every((m) => m.rollout.informativeGroups === 0)).toBe(true);
    expect(await weights(left)).toBe(untouched);

    // The same guesses taken as judged: GRPO learns from them.
    const taken = new ChoicePolicy({ seed: 1 });
    const judged = await train(
      { policy: taken, makeEnv: guessing(false), trainTasks: tasks },
      config,
    );
    expect(judged.every((m) => m.rollout.unjudged === 0)).toBe(true);
    expect(await weights(taken)).not.toBe(untouched);
  });

  it('leaves GRPO groups whose rewards are all equal out of the update, unless told not to', async () => {
    // Every pick fails: no group is informative, so only the entropy bonus could move the policy.
    const failing = () => {
      const env = new PickBanditEnv();
      const step = env.step.bind(env);
      env.step = async (action: string) => ({ ...(await step(action)), reward: 0 });
      return env;
    };
    const config = { ...small, algo: 'grpo' as const, iterations: 2, entropyCoef: 0.01 };
    const untouched = await weights(new ChoicePolicy({ seed: 1 }));

    const dropped = new ChoicePolicy({ seed: 1 });
    const history = await train({ policy: dropped, makeEnv: failing, trainTasks: tasks }, config);
    const episodes = small.tasksPerIteration * small.groupSize;
    expect(history.map((m) => m.rollout.uninformative)).toEqual([episodes, episodes]);
    expect(history.every((m) => m.update.minibatches === 0)).toBe(true);
    expect(await weights(dropped)).toBe(untouched);

    const kept = new ChoicePolicy({ seed: 1 });
    const all = await train(
      { policy: kept, makeEnv: failing, trainTasks: tasks },
      { ...config, dropUninformativeGroups: false },
    );
    expect(all.every((m) => m.rollout.uninformative === 0 && m.update.minibatches > 0)).toBe(true);
    expect(await weights(kept)).not.toBe(untouched);
  });

  it('keeps every episode for GAE, where an all-equal group still has nonzero advantages', async () => {
    const history = await train(
      { policy: new ChoicePolicy({ seed: 1 }), makeEnv, trainTasks: tasks },
      { ...small, algo: 'ppo', iterations: 1 },
    );
    expect(history[0]?.rollout.uninformative).toBe(0);
  });

  it('with keepBest ends with the best evaluated weights: the start, where training only made it worse', async () => {
    // A misleading training env (it pays the wrong picks), evaluated in the real bandit.
    const misleading = () => {
      const env = new PickBanditEnv();
      const step = env.step.bind(env);
      env.step = async (action: string) => {
        const result = await step(action);
        return result.terminated ? { ...result, reward: 1 - result.reward } : result;
      };
      return env;
    };
    const evalIo = { makeEvalEnv: makeEnv, evalTasks: tasks };
    const config = { ...small, algo: 'grpo' as const, iterations: 3, evalEvery: 1 };
    const started = async () => {
      const policy = new ChoicePolicy({ seed: 1 });
      await train({ policy, makeEnv, trainTasks: tasks }, { ...small, iterations: 4 });
      return policy;
    };

    const kept = await started();
    const start = await weights(kept);
    const before = (await evaluate(kept, makeEnv, tasks, small)).successRate;
    const history = await train(
      { policy: kept, makeEnv: misleading, trainTasks: tasks, ...evalIo },
      { ...config, keepBest: true },
    );
    // No evaluation beat the start (a tie keeps the earlier weights), and the last fell below it.
    expect(history.every((m) => (m.eval?.successRate ?? 1) <= before)).toBe(true);
    expect(history.at(-1)?.eval?.successRate).toBeLessThan(before);
    expect(history.at(-1)?.kept).toEqual({ iteration: -1, eval: expect.any(Object) });
    expect(history.at(-1)?.kept?.eval.successRate).toBe(before);
    expect(await weights(kept)).toBe(start);

    // Without it, the policy ends where the misleading rewards took it.
    const last = await started();
    await train({ policy: last, makeEnv: misleading, trainTasks: tasks, ...evalIo }, config);
    expect((await evaluate(last, makeEnv, tasks, small)).successRate).toBeLessThan(before);
  });

  it('with keepBest keeps a later iteration where training helped, and refuses to run without evaluations', async () => {
    const policy = new ChoicePolicy({ seed: 1 });
    const io = { policy, makeEnv, trainTasks: tasks, makeEvalEnv: makeEnv, evalTasks: tasks };
    const history = await train(io, { ...small, algo: 'grpo', evalEvery: 1, keepBest: true });
    const kept = history.at(-1)?.kept;
    expect(kept?.iteration).toBeGreaterThanOrEqual(0);
    expect(kept?.eval.successRate).toBe(Math.max(...history.map((m) => m.eval?.successRate ?? 0)));
    expect((await evaluate(policy, makeEnv, tasks, small)).successRate).toBe(
      kept?.eval.successRate,
    );
    await expect(train(io, { ...small, keepBest: true })).rejects.toThrow(/set evalEvery/);
    await expect(
      train({ policy, makeEnv, trainTasks: tasks }, { ...small, evalEvery: 1, keepBest: true }),
    ).rejects.toThrow(/give the trainer makeEvalEnv and evalTasks/);
  });

  it('refuses GRPO without groups and unknown algorithms', async () => {
    const policy = new ChoicePolicy();
    await expect(
      train({ policy, makeEnv, trainTasks: tasks }, { algo: 'grpo', groupSize: 1 }),
    ).rejects.toThrow(/groupSize to 2/);
    await expect(
      train({ policy, makeEnv, trainTasks: tasks }, { algo: 'a2c' as 'ppo' }),
    ).rejects.toThrow(/available: grpo, ppo/);
  });

  it("with klCoef keeps the policy nearer its start (GRPO's π_ref) than without", async () => {
    const config = { ...small, algo: 'grpo' as const, iterations: 4 };
    const drift = async (klCoef: number) => {
      const policy = new ChoicePolicy({ seed: 1 });
      const reference = new ChoicePolicy({ seed: 1 });
      const start = await weights(reference);
      const history = await train(
        { policy, makeEnv, trainTasks: tasks, reference },
        { ...config, klCoef },
      );
      // The reference is only read: its weights are as they were.
      expect(await weights(reference)).toBe(start);
      const probe = policyReference(reference);
      const decisions = await decisionsOf(tasks.slice(0, 10));
      const before = probe.logProbs(decisions);
      const after = policyReference(policy).logProbs(decisions);
      // KL(π_θ ‖ π_ref) summed over the pages, exactly: every action of each page is scored.
      const kl = after.reduce((s, l, i) => s + Math.exp(l) * (l - (before[i] as number)), 0);
      return { history, kl };
    };
    const free = await drift(0);
    const held = await drift(20);
    expect(free.history.every((m) => m.update.refKl === 0)).toBe(true);
    expect(held.history.some((m) => m.update.refKl > 0)).toBe(true);
    expect(held.kl).toBeLessThan(free.kl / 2);
  });

  it('a frozen reference scores with the weights it froze, and leaves the trained ones in place', async () => {
    const policy = new ChoicePolicy({ seed: 1 });
    const decisions = await decisionsOf(tasks.slice(0, 3));
    const frozen = frozenReference(policy);
    const start = frozen.logProbs(decisions);
    await train({ policy, makeEnv, trainTasks: tasks }, { ...small, algo: 'grpo', iterations: 3 });
    const trained = await weights(policy);
    expect(frozen.logProbs(decisions)).toEqual(start);
    expect(await weights(policy)).toBe(trained);
    expect(policyReference(policy).logProbs(decisions)).not.toEqual(start);
    frozen.dispose();
  });

  it('resumes a run with a KL penalty only given the reference it started from, to the same weights', async () => {
    const config = { ...small, algo: 'grpo' as const, iterations: 3, klCoef: 2 };
    const io = { makeEnv, trainTasks: tasks };
    const straight = new ChoicePolicy({ seed: 2 });
    await train({ ...io, policy: straight }, config);

    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-train-kl-'));
    await train(
      { ...io, policy: new ChoicePolicy({ seed: 2 }), outDir: dir },
      { ...config, iterations: 1 },
    );
    const reloaded = await ChoicePolicy.load(join(dir, 'checkpoint'));
    await expect(
      train({ ...io, policy: reloaded, outDir: dir, resume: true }, config),
    ).rejects.toThrow(/reference policy the run started from/);
    const reference = new ChoicePolicy({ seed: 2 });
    await train({ ...io, policy: reloaded, outDir: dir, resume: true, reference }, config);
    expect(await weights(reloaded)).toBe(await weights(straight));
  });
});
