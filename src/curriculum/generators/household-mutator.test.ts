import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { type HouseholdGoal, parseInstruction } from '../../envs/household/goals.ts';
import { makeHousehold } from '../../envs/household/household-env.ts';
import { generateScene } from '../../envs/household/scene.ts';
import { solve } from '../../envs/household/solver.ts';
import { householdSpec, householdTasks } from '../../envs/household/tasks.ts';
import { HouseholdWorld } from '../../envs/household/world.ts';
import { isRealizable } from '../realizable.ts';
import { SqliteTaskPool } from '../sqlite-task-pool.ts';
import { householdMutator, supportedGoals } from './household-mutator.ts';

const seeds = householdTasks('train', 300);

async function mutateAll(
  pool: SqliteTaskPool,
  parents: readonly Task[],
  count: number,
): Promise<Task[]> {
  const out: Task[] = [];
  for (const parent of parents) {
    const { tasks, warnings } = await householdMutator.generate({
      parent,
      count,
      pool,
      rng: new Rng(2).fork(parent.id),
    });
    expect(warnings).toEqual([]);
    out.push(...(await pool.add(tasks, 1)));
  }
  return out;
}

const target = (g: HouseholdGoal) => ('receptacle' in g ? g.receptacle : g.light);

describe('householdMutator', () => {
  it('knows every goal the env itself poses: each seed task\u2019s goal is a supported goal of its room', () => {
    for (const seed of seeds) {
      const { scene, goal } = householdSpec(seed);
      expect(supportedGoals(generateScene(scene))).toContainEqual(goal);
    }
  });

  it('makes hundreds of variations, two generations deep, that the real household runs and a plan solves', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const first = await mutateAll(pool, seeds, 3);
    const mutated = [...first, ...(await mutateAll(pool, first.slice(0, 150), 2))];
    expect(mutated.length).toBeGreaterThan(1000);

    const env = makeHousehold();
    for (const task of mutated) {
      expect(isRealizable(task)).toBe(true);
      const { scene, goal } = householdSpec(task);
      expect(parseInstruction(task.instruction)).toEqual(goal);
      const { observation } = await env.reset({ task });
      expect(observation.instruction).toBe(task.instruction);
      const plan = solve(HouseholdWorld.fromScene(generateScene(scene)), goal);
      expect(plan?.length).toBeGreaterThan(0);
      let last = { reward: 0, terminated: false };
      for (const command of plan ?? []) last = await env.step(command);
      expect(last).toMatchObject({ reward: 1, terminated: true });
    }
  });

  it('stays in the parent\u2019s room and changes one thing: the object, the target or the task type', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const kinds = { object: 0, target: 0, type: 0 };
    for (const task of await mutateAll(pool, seeds, 3)) {
      const { scene, goal } = householdSpec(task);
      const parent = householdSpec(pool.get(task.parentId as string)?.task as Task);
      expect(scene).toEqual(parent.scene);
      const changed = {
        type: goal.type !== parent.goal.type,
        object: goal.object !== parent.goal.object,
        target: target(goal) !== target(parent.goal),
      };
      if (changed.type) {
        expect(changed.object).toBe(false);
        kinds.type++;
      } else {
        expect(changed.object !== changed.target).toBe(true);
        if (changed.object) kinds.object++;
        else kinds.target++;
      }
    }
    expect(kinds.object).toBeGreaterThan(50);
    expect(kinds.target).toBeGreaterThan(50);
    expect(kinds.type).toBeGreaterThan(50);
  });

  it('is reproducible given the random stream', async () => {
    const run = async () => {
      const pool = SqliteTaskPool.open();
      await pool.add(seeds);
      return mutateAll(pool, seeds.slice(0, 40), 3);
    };
    expect(await run()).toEqual(await run());
  });

  it('leaves tasks without a household spec alone, with a warning', async () => {
    const parent: Task = {
      id: 'h/1',
      env: 'household',
      instruction: 'put a mug in sinkbasin.',
      origin: 'generated',
    };
    const result = await householdMutator.generate({
      parent,
      count: 2,
      pool: SqliteTaskPool.open(),
      rng: new Rng(0),
    });
    expect(result).toEqual({
      tasks: [],
      warnings: [expect.stringMatching(/^household-mutator: task h\/1 has no household spec/)],
    });
  });
});
