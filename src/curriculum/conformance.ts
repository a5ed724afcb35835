import assert from 'node:assert/strict';
import type { Task } from '../core/types.ts';
import type { TestRunner } from '../envs/conformance.ts';
import { generatedTask } from './task-identity.ts';
import type { BatchMaker, TaskPool } from './task-pool.ts';

/** The task-pool implementation under test. */
export interface TaskPoolConformanceOptions {
  /** Shown in the test names. */
  name: string;
  /** A new, empty pool; each test opens its own. */
  open: () => Promise<TaskPool>;
  /** Another handle on the pool `pool` lives in, as another process would open it. */
  openAgain: (pool: TaskPool) => Promise<TaskPool>;
}

/**
 * The contract every task pool keeps (see `TaskPool`), one process or many: run it from a test
 * file with `runTaskPoolConformance({ name, open, openAgain }, { describe, it })`. The SQLite and
 * PostgreSQL pools both go through it.
 */
export function runTaskPoolConformance(
  options: TaskPoolConformanceOptions,
  { describe, it }: TestRunner,
): void {
  const handles: TaskPool[] = [];
  const open = async () => remember(await options.open());
  const openAgain = async (pool: TaskPool) => remember(await options.openAgain(pool));
  const remember = (pool: TaskPool) => {
    handles.push(pool);
    return pool;
  };
  const withPool = (body: (pool: TaskPool) => Promise<void>) => async () => {
    try {
      await body(await open());
    } finally {
      await Promise.all(handles.splice(0).map((h) => h.close()));
    }
  };

  describe(`task pool conformance: ${options.name}`, () => {
    it(
      'holds seed and generated tasks with their parents and whether a real env can build them',
      withPool(async (pool) => {
        const seeds = toys(6);
        const first = seeds[0] as Task;
        assert.equal((await pool.add(seeds)).length, 6);
        const synthetic = generatedTask(first, 'fetch two toys and hide them');
        const realizable = generatedTask(first, 'fetch toy number 100', { n: 100 });
        assert.equal((await pool.add([synthetic, realizable], 3)).length, 2);
        assert.equal(pool.size, 8);
        assert.deepEqual(pool.get(synthetic.id), {
          task: synthetic,
          realizable: false,
          createdIteration: 3,
        });
        assert.equal(pool.get(realizable.id)?.realizable, true);
        assert.deepEqual(pool.get(first.id), { task: first, realizable: true });
        assert.deepEqual(
          pool.tasks({ origin: 'generated' }).map((e) => e.task.parentId),
          [first.id, first.id],
        );
        assert.deepEqual(
          pool.tasks({ realizable: false }).map((e) => e.task.id),
          [synthetic.id],
        );
        assert.equal(pool.tasks({ before: 3 }).length, 6);
        assert.equal(pool.tasks({ before: 4 }).length, 8);
        assert.equal(pool.tasks({ env: 'elsewhere' }).length, 0);
      }),
    );

    it(
      'skips known ids and generated duplicates, by identity or by wording, within one add too',
      withPool(async (pool) => {
        const seeds = toys(3);
        const first = seeds[0] as Task;
        await pool.add(seeds);
        assert.deepEqual(await pool.add(seeds), []);
        const rephrased = generatedTask(first, 'a different wording', first.spec);
        assert.equal(pool.isDuplicate(rephrased), true);
        const sameWords = generatedTask(first, `  ${first.instruction.toUpperCase()}!`);
        assert.equal(pool.isDuplicate(sameWords), true);
        const fresh = generatedTask(first, 'hide toy number 0 under the bed');
        const freshAgain = generatedTask(seeds[1] as Task, 'Hide toy number 0 under the bed.');
        assert.deepEqual(await pool.add([rephrased, sameWords, fresh, fresh, freshAgain], 0), [
          fresh,
        ]);
      }),
    );

    it(
      'refuses a task whose parent it does not hold, storing nothing of that add, and rollouts of unknown tasks',
      withPool(async (pool) => {
        const seeds = toys(2);
        await pool.add(seeds);
        const fresh = generatedTask(seeds[0] as Task, 'hide toy number 0');
        const orphan = generatedTask({ ...(seeds[0] as Task), id: 'toy/gone' }, 'hide it');
        await assert.rejects(pool.add([fresh, orphan], 1), /not in the pool; add the parent/);
        assert.equal(pool.size, 2);
        const other = await openAgain(pool);
        assert.equal(other.size, 2);
        await assert.rejects(
          pool.recordGroups(0, [{ taskId: 'nope', reward: 1 }]),
          /not in the task pool/,
        );
        await assert.rejects(pool.addToGroup(0, 'nope', 1), /not in the task pool/);
        await assert.rejects(
          pool.addToGroup(0, (seeds[0] as Task).id, Number.NaN),
          /not a finite number/,
        );
      }),
    );

    it(
      'scores each rollout group by V = mean of (r − r̄)², and sums a task over iterations',
      withPool(async (pool) => {
        const seeds = toys(6);
        await pool.add(seeds);
        const [a, b, c] = seeds.map((t) => t.id) as [string, string, string];
        await pool.recordGroups(0, [
          ...[1, 0, 1, 0].map((reward) => ({ taskId: a, reward })),
          ...[1, 1, 1, 1].map((reward) => ({ taskId: b, reward })),
          ...[0.5, 0.5, 0, 1].map((reward) => ({ taskId: c, reward })),
        ]);
        const groups = Object.fromEntries((await pool.groups(0)).map((g) => [g.taskId, g]));
        assert.deepEqual(
          { ...groups[a] },
          { iteration: 0, taskId: a, attempts: 4, meanReward: 0.5, variance: 0.25, successes: 2 },
        );
        assert.equal(groups[b]?.variance, 0);
        assert.ok(Math.abs((groups[c]?.variance ?? 0) - 0.125) < 1e-12);
        assert.equal(groups[c]?.successes, 1);
        await pool.recordGroups(
          2,
          [0, 0].map((reward) => ({ taskId: a, reward })),
        );
        const stats = await pool.taskStats(a);
        assert.equal(stats.attempts, 6);
        assert.equal(stats.successes, 2);
        assert.ok(Math.abs(stats.meanReward - 2 / 6) < 1e-12);
        assert.ok(Math.abs(stats.variance - (2 / 6 - (2 / 6) ** 2)) < 1e-12);
        assert.deepEqual(await pool.taskStats((seeds[5] as Task).id), {
          attempts: 0,
          meanReward: 0,
          variance: 0,
          successes: 0,
        });
        assert.equal(await pool.lastRecordedIteration(2), 0);
        assert.equal(await pool.lastRecordedIteration(3), 2);
        assert.equal(await pool.lastRecordedIteration(0), undefined);
      }),
    );

    it(
      're-recording an iteration replaces its groups; adding to a group counts each episode',
      withPool(async (pool) => {
        const [seed] = toys(1) as [Task];
        await pool.add([seed]);
        const taskId = seed.id;
        await pool.recordGroups(0, [
          { taskId, reward: 1 },
          { taskId, reward: 0 },
        ]);
        await pool.recordGroups(0, [
          { taskId, reward: 1 },
          { taskId, reward: 1 },
        ]);
        assert.equal((await pool.taskStats(taskId)).attempts, 2);
        assert.equal((await pool.taskStats(taskId)).successes, 2);
        for (const reward of [1, 0, 1, 0]) await pool.addToGroup(5, taskId, reward);
        const [group] = await pool.groups(5);
        assert.deepEqual(
          { ...group },
          { iteration: 5, taskId, attempts: 4, meanReward: 0.5, variance: 0.25, successes: 2 },
        );
      }),
    );

    it(
      'reports per iteration: pool size, generated tasks, informative share, mean V',
      withPool(async (pool) => {
        const seeds = toys(6);
        await pool.add(seeds);
        const [a, b] = seeds.map((t) => t.id) as [string, string];
        await pool.recordGroups(
          0,
          [1, 0, 1, 1].map((reward) => ({ taskId: a, reward })),
        );
        await pool.recordGroups(
          0,
          [0, 0, 0, 0].map((reward) => ({ taskId: b, reward })),
        );
        const child = generatedTask(seeds[0] as Task, 'hide toy number 0 in the garden');
        await pool.add([child], 1);
        await pool.recordGroups(
          1,
          [1, 0].map((reward) => ({ taskId: child.id, reward })),
        );
        assert.deepEqual(await pool.iterationStats(), [
          {
            iteration: 0,
            poolSize: 6,
            generatedTasks: 0,
            newTasks: 0,
            tasksPlayed: 2,
            informativeShare: 0.5,
            meanVariance: (0.1875 + 0) / 2,
            meanReward: 3 / 8,
          },
          {
            iteration: 1,
            poolSize: 7,
            generatedTasks: 1,
            newTasks: 1,
            tasksPlayed: 1,
            informativeShare: 1,
            meanVariance: 0.25,
            meanReward: 0.5,
          },
        ]);
      }),
    );

    it(
      'another handle reads what one wrote: tasks in order, groups and statistics, and the other way',
      withPool(async (pool) => {
        const seeds = toys(4);
        await pool.add(seeds);
        const children = [
          generatedTask(seeds[0] as Task, 'hide toy number 0 in the garden'),
          generatedTask(seeds[1] as Task, 'hide toy number 1 in the shed', { n: 101 }),
        ];
        await pool.add(children, 1);
        await pool.recordGroups(1, [
          { taskId: children[0]?.id as string, reward: 1 },
          { taskId: children[0]?.id as string, reward: 0 },
          { taskId: (seeds[0] as Task).id, reward: 0.5 },
        ]);
        const other = await openAgain(pool);
        assert.deepEqual(other.tasks(), pool.tasks());
        assert.deepEqual(await other.iterationStats(), await pool.iterationStats());
        assert.deepEqual(await other.groups(1), await pool.groups(1));
        assert.equal(
          other.isDuplicate(generatedTask(seeds[0] as Task, 'HIDE TOY NUMBER 0 IN THE GARDEN')),
          true,
        );
        const third = generatedTask(seeds[2] as Task, 'hide toy number 2 in the attic');
        await other.add([third], 2);
        assert.equal(pool.get(third.id), undefined);
        await pool.refresh();
        assert.deepEqual(pool.get(third.id), {
          task: third,
          realizable: false,
          createdIteration: 2,
        });
        assert.deepEqual(
          pool.tasks().map((e) => e.task.id),
          other.tasks().map((e) => e.task.id),
        );
      }),
    );

    it(
      'hands out a batch slot by slot, each task to groupSize consecutive slots, then makes the next',
      withPool(async (pool) => {
        const seeds = toys(4);
        await pool.add(seeds);
        const made: number[] = [];
        const make: BatchMaker = async (iteration) => {
          made.push(iteration);
          return seeds.slice(iteration % 2, (iteration % 2) + 2);
        };
        assert.equal(await pool.handOut(), undefined);
        assert.equal(await pool.lastIteration(), undefined);
        assert.equal(await pool.startBatch(3, make), 0);
        const slots = [];
        for (let i = 0; i < 6; i++) slots.push(await pool.handOut());
        assert.deepEqual(
          slots.map((s) => [s?.iteration, s?.slot, s?.task.id]),
          [0, 1, 2, 3, 4, 5].map((slot) => [0, slot, `toy/${slot < 3 ? 0 : 1}`]),
        );
        assert.deepEqual(slots[0]?.task, seeds[0]);
        assert.equal(await pool.handOut(), undefined);
        assert.equal(await pool.startBatch(3, make), 1);
        assert.equal((await pool.handOut())?.task.id, 'toy/1');
        assert.equal(await pool.startBatch(3, make), 1, 'the current batch still has slots');
        assert.deepEqual(made, [0, 1]);
        // The next batch comes after the last iteration the pool has seen, recorded ones included.
        await pool.recordGroups(6, [{ taskId: 'toy/1', reward: 1 }]);
        assert.equal(await pool.lastIteration(), 6);
        while (await pool.handOut());
        assert.equal(await pool.startBatch(1, make), 7);
        assert.equal((await pool.handOut())?.task.id, 'toy/1');
      }),
    );

    it(
      'refuses an empty batch and one with tasks it does not hold, naming the fix',
      withPool(async (pool) => {
        await pool.add(toys(2));
        await assert.rejects(
          pool.startBatch(2, async () => []),
          /empty batch: it has no tasks to hand out/,
        );
        const stray: Task = { id: 'toy/stray', env: 'toy', instruction: 'x', origin: 'seed' };
        await assert.rejects(
          pool.startBatch(2, async () => [stray]),
          /toy\/stray is not in the task pool/,
        );
        assert.equal(await pool.handOut(), undefined);
      }),
    );

    it(
      'shared by two handles: no slot handed out twice, each batch made once, no reward lost, no duplicate task',
      withPool(async (pool) => {
        const other = await openAgain(pool);
        const seeds = toys(12);
        await pool.add(seeds);
        const made: number[] = [];
        const make: BatchMaker = async (iteration) => {
          made.push(iteration);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return seeds.slice((iteration * 4) % 12, ((iteration * 4) % 12) + 4);
        };
        /** A server's feed: takes `count` slots one after another, making batches as needed. */
        const take = async (handle: TaskPool, count: number) => {
          const taken = [];
          while (taken.length < count) {
            const slot = await handle.handOut();
            if (slot) taken.push(slot);
            else await handle.startBatch(3, make);
          }
          return taken;
        };
        const all = (await Promise.all([take(pool, 40), take(other, 40), take(other, 40)])).flat();
        assert.deepEqual(
          made,
          Array.from({ length: 10 }, (_, i) => i),
        );
        const keys = all.map((s) => `${s.iteration}/${s.slot}`);
        assert.equal(new Set(keys).size, 120, 'a slot was handed out twice');
        for (let iteration = 0; iteration < 10; iteration++) {
          const counts = new Map<string, number>();
          for (const s of all.filter((s) => s.iteration === iteration)) {
            counts.set(s.task.id, (counts.get(s.task.id) ?? 0) + 1);
          }
          assert.deepEqual([...counts.values()], [3, 3, 3, 3], `groups of iteration ${iteration}`);
        }

        const taskId = (seeds[0] as Task).id;
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? pool : other).addToGroup(0, taskId, i % 4 === 0 ? 1 : 0.5),
          ),
        );
        const [group] = await pool.groups(0);
        assert.equal(group?.attempts, 50);
        assert.equal(group?.successes, 13);
        assert.ok(Math.abs((group?.meanReward ?? 0) - (13 + 37 * 0.5) / 50) < 1e-12);

        const variation = generatedTask(seeds[0] as Task, 'hide toy number 0 in the cellar');
        const reworded = generatedTask(seeds[1] as Task, 'Hide toy number 0 in the cellar!');
        const added = await Promise.all([
          pool.add([variation], 11),
          other.add([reworded], 11),
          other.add([variation], 11),
        ]);
        assert.equal(added.flat().length, 1);
        await Promise.all([pool.refresh(), other.refresh()]);
        for (const handle of [pool, other]) {
          assert.equal(handle.tasks({ origin: 'generated' }).length, 1);
          assert.equal(handle.size, 13);
        }
      }),
    );

    it(
      'a handle opened later continues the batch where the last one stopped',
      withPool(async (pool) => {
        const seeds = toys(2);
        await pool.add(seeds);
        await pool.startBatch(2, async () => seeds);
        await pool.handOut();
        await pool.handOut();
        const restarted = await openAgain(pool);
        await pool.close();
        assert.deepEqual(
          { ...(await restarted.handOut()), task: undefined },
          { iteration: 0, slot: 2, task: undefined },
        );
        assert.equal(await restarted.startBatch(2, async () => []), 0);
      }),
    );
  });
}

/** `count` seed tasks of a toy env, each with a spec (so a real env could build it). */
function toys(count: number): Task[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `toy/${i}`,
    env: 'toy',
    instruction: `fetch toy number ${i}`,
    spec: { n: i },
    origin: 'seed' as const,
  }));
}
