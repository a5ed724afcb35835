import { describe, expect, it } from 'vitest';
import { ConfigError, TaskError } from '../../core/errors.ts';
import { goalReached, parseInstruction, TASK_TYPES } from './goals.ts';
import { generateScene } from './scene.ts';
import { solve } from './solver.ts';
import { householdSpec, householdTask, householdTasks, TEST_TASK_COUNT } from './tasks.ts';
import { HouseholdWorld } from './world.ts';

const testTasks = householdTasks('test');
const trainTasks = householdTasks('train', 500);

describe('household tasks', () => {
  it('are the same every time, with ids by index, and splits that never overlap', () => {
    expect(householdTask(7)).toEqual(householdTask(7));
    expect(testTasks).toHaveLength(TEST_TASK_COUNT);
    expect(testTasks[3]?.id).toBe('household/3');
    expect(trainTasks[0]?.id).toBe(`household/${TEST_TASK_COUNT}`);
    const scenes = (tasks: typeof testTasks) =>
      new Set(tasks.map((t) => JSON.stringify(householdSpec(t).scene)));
    const shared = [...scenes(testTasks)].filter((s) => scenes(trainTasks).has(s));
    expect(shared).toEqual([]);
    expect(householdTasks('train', 3)).toEqual(trainTasks.slice(0, 3));
    expect(() => householdTasks('test', TEST_TASK_COUNT + 1)).toThrow(ConfigError);
    expect(() => householdTask(-1)).toThrow(ConfigError);
  });

  it('take the six task types in turn, each in the rooms ALFWorld sets it in', () => {
    const types = testTasks.map((t) => householdSpec(t).goal.type);
    expect(types.slice(0, 6)).toEqual([...TASK_TYPES]);
    TASK_TYPES.forEach((type, i) => {
      const share = Math.floor(TEST_TASK_COUNT / 6) + (i < TEST_TASK_COUNT % 6 ? 1 : 0);
      expect(types.filter((t) => t === type)).toHaveLength(share);
    });
    for (const task of testTasks) {
      const { scene, goal } = householdSpec(task);
      if (goal.type === 'pick_heat_then_place' || goal.type === 'pick_cool_then_place') {
        expect(scene.room).toBe('kitchen');
      }
      if (goal.type === 'look_at_obj_in_light') expect(scene.room).toMatch(/livingroom|bedroom/);
      if (goal.type === 'pick_clean_then_place') expect(scene.room).toMatch(/kitchen|bathroom/);
    }
    const rooms = new Set(testTasks.map((t) => householdSpec(t).scene.room));
    expect(rooms.size).toBe(4);
  });

  it('state their goal in the instruction', () => {
    for (const task of [...testTasks, ...trainTasks]) {
      expect(parseInstruction(task.instruction), task.instruction).toEqual(
        householdSpec(task).goal,
      );
    }
  });

  it('are all solvable within the step limit, and none is done before the first step', () => {
    for (const task of [...testTasks, ...trainTasks]) {
      const { scene, goal } = householdSpec(task);
      const world = HouseholdWorld.fromScene(generateScene(scene));
      expect(goalReached(world, goal), task.id).toBe(false);
      const plan = solve(world, goal);
      expect(plan, task.id).toBeDefined();
      expect(plan?.length).toBeLessThanOrEqual(50);
      for (const command of plan ?? [])
        expect(world.execute(command).ok, `${task.id}: ${command}`).toBe(true);
      expect(goalReached(world, goal), task.id).toBe(true);
    }
  });

  it('refuse to give a spec for another env or a generated task without one', () => {
    const task = householdTask(0);
    expect(() => householdSpec({ ...task, env: 'webshop' })).toThrow(TaskError);
    expect(() => householdSpec({ ...task, spec: undefined })).toThrow(/synthetic env/);
  });
});
