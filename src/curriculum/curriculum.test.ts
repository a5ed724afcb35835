import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { finalReward, type Task } from '../core/types.ts';
import { makeHousehold } from '../envs/household/household-env.ts';
import { householdTasks } from '../envs/household/tasks.ts';
import { HouseholdExpert } from '../policy/experts/household-expert.ts';
import { rollout } from '../rl/rollout.ts';
import { Curriculum, type CurriculumConfig } from './curriculum.ts';
import type { TaskGenerator } from './generators/generator.ts';
import { offlineMutators } from './generators/offline-mutators.ts';
import { uniformSchedule } from './schedule.ts';
import { SqliteTaskPool } from './sqlite-task-pool.ts';
import { generatedTask } from './task-identity.ts';

const seeds: Task[] = Array.from({ length: 40 }, (_, i) => ({
  id: `toy/${i}`,
  env: 'toy',
  instruction: `do toy thing number ${i}`,
  spec: { n: i },
  origin: 'seed',
}));

/** Makes `perParent` numbered variations (with a spec unless `synthetic`) and records its parents. */
function fakeGenerator(options: { perParent?: number; synthetic?: boolean } = {}) {
  const parents: string[] = [];
  let made = 0;
  const generator: TaskGenerator = {
    name: 'fake',
    async generate({ parent, count }) {
      parents.push(parent.id);
      const n = Math.min(count, options.perParent ?? count);
      const tasks = Array.from({ length: n }, () => {
        made++;
        const instruction = `${parent.instruction}, variant ${made}`;
        return generatedTask(parent, instruction, options.synthetic ? undefined : { made });
      });
      return { tasks, warnings: n < count ? [`only ${n} of ${count}`] : [] };
    },
  };
  return { generator, parents };
}

function curriculum(
  overrides: Partial<CurriculumConfig> = {},
  generator = fakeGenerator().generator,
) {
  return new Curriculum(
    { pool: SqliteTaskPool.open(), seedTasks: seeds, generator },
    { seed: 5, ...overrides },
  );
}

/** Rewards per task of a batch: a list of outcomes, or all failures. */
const outcomes = (batch: readonly Task[], rewards: (task: Task) => number[]) =>
  batch.flatMap((task) => rewards(task).map((reward) => ({ taskId: task.id, reward })));

describe('Curriculum', () => {
  it('generates nothing until some task has varied, then a share λ of each batch', async () => {
    for (const [share, expected] of [
      [0, 0],
      [0.25, 4],
      [0.5, 8],
      [1, 16],
    ] as const) {
      const c = curriculum({ generatedShare: share });
      const first = await c.next(0, 16);
      expect(first.filter((t) => t.origin === 'generated')).toEqual([]);
      await c.record(outcomes(first, () => [1, 0, 1, 0]));
      const batch = await c.next(1, 16);
      expect(batch).toHaveLength(16);
      expect(new Set(batch.map((t) => t.id)).size).toBe(16);
      expect(batch.filter((t) => t.origin === 'generated')).toHaveLength(expected);
    }
  });

  it('varies the tasks with the highest reward variance in the last round', async () => {
    const { generator, parents } = fakeGenerator();
    const c = curriculum({ generatedShare: 0.25, variationsPerParent: 2 }, generator);
    const first = await c.next(0, 16);
    const [best, second, ...rest] = first as [Task, Task, ...Task[]];
    await c.record([
      ...outcomes([best], () => [1, 0, 1, 0]),
      ...outcomes([second], () => [1, 1, 1, 0]),
      ...outcomes(rest.slice(0, 4), () => [1, 1, 1, 1]),
      ...outcomes(rest.slice(4), () => [0, 0, 0, 0]),
    ]);
    const generated = (await c.next(1, 16)).filter((t) => t.origin === 'generated');
    expect(parents).toEqual([best.id, second.id]);
    expect(generated.map((t) => t.parentId)).toEqual([best.id, best.id, second.id, second.id]);
  });

  it('with fewer informative parents than needed, generates fewer and fills the batch from the pool', async () => {
    const c = curriculum({ generatedShare: 0.5, variationsPerParent: 2 });
    const first = await c.next(0, 16);
    await c.record(outcomes(first, (t) => (t === first[0] ? [1, 0] : [0, 0])));
    const batch = await c.next(1, 16);
    expect(batch).toHaveLength(16);
    expect(batch.filter((t) => t.origin === 'generated').map((t) => t.parentId)).toEqual([
      first[0]?.id,
      first[0]?.id,
    ]);
  });

  it('when a generator gives fewer variations, asks the next parents and keeps its warnings', async () => {
    const { generator, parents } = fakeGenerator({ perParent: 1 });
    const c = curriculum({ generatedShare: 0.25, variationsPerParent: 2 }, generator);
    const first = await c.next(0, 16);
    await c.record(outcomes(first, () => [1, 0]));
    const batch = await c.next(1, 16);
    expect(batch.filter((t) => t.origin === 'generated')).toHaveLength(4);
    expect(parents).toHaveLength(4);
    expect(c.warnings).toContainEqual({ iteration: 1, message: 'only 1 of 2' });
  });

  it('random mode varies random parents, informative or not', async () => {
    const { generator, parents } = fakeGenerator();
    const c = curriculum({ mode: 'random', generatedShare: 0.5 }, generator);
    const first = await c.next(0, 16);
    expect(first.filter((t) => t.origin === 'generated')).toHaveLength(8);
    await c.record(outcomes(first, (t) => (t === first[0] ? [1, 0] : [1, 1])));
    await c.next(1, 16);
    expect(new Set(parents).size).toBeGreaterThan(4);
    expect(parents.filter((id) => id !== first[0]?.id).length).toBeGreaterThan(0);
  });

  it('off is uniform over seed tasks, as the trainer always sampled, and never generates', async () => {
    const { generator, parents } = fakeGenerator();
    const c = curriculum({ mode: 'off', seed: 9 }, generator);
    const uniform = uniformSchedule(seeds, 9);
    for (let i = 0; i < 4; i++) {
      const batch = await c.next(i, 10);
      expect(batch).toEqual(uniform.next(i, 10));
      await c.record(outcomes(batch, () => [1, 0]));
    }
    expect(parents).toEqual([]);
  });

  it('gives the same batch when asked again for an iteration', async () => {
    const c = curriculum({ generatedShare: 0.5 });
    const first = await c.next(0, 16);
    await c.record(outcomes(first, () => [1, 0]));
    const batch = await c.next(1, 16);
    expect(await c.next(1, 16)).toEqual(batch);
  });

  it('shares its state through the pool: another process’s curriculum gives the same batch', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-curriculum-')), 'tasks.db');
    const [one, two] = [SqliteTaskPool.open({ path }), SqliteTaskPool.open({ path })];
    const config = { generatedShare: 0.5, seed: 5 };
    const here = new Curriculum(
      { pool: one, seedTasks: seeds, generator: fakeGenerator().generator },
      config,
    );
    const { generator, parents } = fakeGenerator();
    const there = new Curriculum({ pool: two, seedTasks: seeds, generator }, config);
    const first = await here.next(0, 16);
    await here.record(outcomes(first, () => [1, 0]));
    const batch = await here.next(1, 16);
    expect(batch.some((t) => t.origin === 'generated')).toBe(true);
    expect(await there.next(1, 16)).toEqual(batch);
    expect(parents).toEqual([]); // its variations were made already
    expect(await there.stats()).toEqual(await here.stats());
    await Promise.all([one.close(), two.close()]);
  });

  it('with realizableOnly, hands out no synthetic-only tasks', async () => {
    const c = curriculum(
      { generatedShare: 0.5, realizableOnly: true },
      fakeGenerator({ synthetic: true }).generator,
    );
    const first = await c.next(0, 16);
    await c.record(outcomes(first, () => [1, 0]));
    const batch = await c.next(1, 16);
    expect(batch).toHaveLength(16);
    expect(batch.every((t) => t.origin === 'seed')).toBe(true);
  });

  it('reports per iteration the pool size, generated tasks, informative share and mean V', async () => {
    const c = curriculum({ generatedShare: 0.25 });
    const first = await c.next(0, 8);
    await c.record(outcomes(first, (t) => (t === first[0] ? [1, 0, 1, 0] : [1, 1, 1, 1])));
    const second = await c.next(1, 8);
    await c.record(outcomes(second, () => [0, 0]));
    expect(await c.stats()).toEqual([
      expect.objectContaining({
        iteration: 0,
        poolSize: 40,
        newTasks: 0,
        tasksPlayed: 8,
        informativeShare: 1 / 8,
        meanVariance: 0.25 / 8,
      }),
      expect.objectContaining({
        iteration: 1,
        poolSize: 42,
        generatedTasks: 2,
        newTasks: 2,
        informativeShare: 0,
        meanVariance: 0,
      }),
    ]);
  });

  it('names the fix for misuse', async () => {
    expect(() => curriculum({ mode: 'greedy' as 'off' })).toThrow(
      /available: off, variance, random/,
    );
    expect(() => curriculum({ generatedShare: 2 })).toThrow(ConfigError);
    expect(() => curriculum({ variationsPerParent: 0 })).toThrow(ConfigError);
    expect(() => new Curriculum({ pool: SqliteTaskPool.open(), seedTasks: seeds })).toThrow(
      /needs a task generator/,
    );
    await expect(curriculum().record([])).rejects.toThrow(/before next\(\)/);
  });
});

describe('Curriculum in the loop (real household, ε-expert, offline mutators)', () => {
  const config = { generatedShare: 0.5, realizableOnly: true, seed: 3 };
  const seedTasks = householdTasks('train', 60);

  /** The trainer's collect stage with a schedule, as it will be wired. */
  async function iterate(schedule: Curriculum, iteration: number): Promise<Task[]> {
    const tasks = await schedule.next(iteration, 8);
    const episodes = await rollout({
      makeEnv: () => makeHousehold(),
      policy: new HouseholdExpert({ epsilon: 0.3 }),
      tasks,
      groupSize: 4,
      seed: iteration,
      provenance: 'real-online',
    });
    await schedule.record(
      episodes.map((e) => ({ taskId: e.groupId, reward: finalReward(e.trajectory) })),
    );
    return tasks;
  }

  it('hands out variations of informative tasks that the real env runs, and resumes from its file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-curriculum-')), 'tasks.db');
    const pool = SqliteTaskPool.open({ path });
    const c = new Curriculum({ pool, seedTasks, generator: offlineMutators }, config);
    const batches = [];
    for (let i = 0; i < 3; i++) batches.push(await iterate(c, i));

    expect(batches[0]?.every((t) => t.origin === 'seed')).toBe(true);
    for (const i of [1, 2]) {
      const generated = batches[i]?.filter((t) => t.origin === 'generated') ?? [];
      expect(generated.length).toBeGreaterThan(0);
      expect(generated.length).toBeLessThanOrEqual(4);
      const informative = (await pool.groups(i - 1))
        .filter((g) => g.variance > 0)
        .map((g) => g.taskId);
      for (const task of generated) expect(informative).toContain(task.parentId);
    }
    const stats = await c.stats();
    expect(stats.map((s) => s.iteration)).toEqual([0, 1, 2]);
    const [, one, two] = stats;
    expect(two?.generatedTasks).toBe((one?.newTasks ?? 0) + (two?.newTasks ?? 0));
    expect(stats[0]?.informativeShare).toBeGreaterThan(0);
    await pool.close();

    const reopened = SqliteTaskPool.open({ path });
    const resumed = new Curriculum(
      { pool: reopened, seedTasks, generator: offlineMutators },
      config,
    );
    expect(await resumed.next(2, 8)).toEqual(batches[2]);
    expect(await reopened.iterationStats()).toEqual(stats);
    await reopened.close();
  });
});
