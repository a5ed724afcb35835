import { describe, expect, it } from 'vitest';
import { TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import { KeysAndDoorsExpert } from './expert.ts';
import { KeysAndDoorsGame } from './game.ts';
import { KeysAndDoorsEnv, makeKeysAndDoors } from './keys-and-doors-env.ts';
import { across, generateLayout } from './layout.ts';
import { solve } from './solver.ts';
import { keysAndDoorsSpec, keysAndDoorsTask, keysAndDoorsTasks, MIN_PLAN } from './tasks.ts';

const testTasks = keysAndDoorsTasks('test', 40);
const expert = new KeysAndDoorsExpert();

runEnvConformance(
  {
    name: 'keys-and-doors',
    makeEnv: () => makeKeysAndDoors({ split: 'test' }),
    task: testTasks[0],
    invalidAction: 'fly north',
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'keys-and-doors driven by the expert',
    makeEnv: () => new KeysAndDoorsEnv(),
    solve: async (observation, task, history) =>
      (await expert.act(observation, { task, history, rng: new Rng(0) })).action,
    maxSteps: 50,
  },
  { describe, it },
);

const planOf = (task: Task) => {
  const { layoutSeed, goal } = keysAndDoorsSpec(task);
  return solve(new KeysAndDoorsGame(generateLayout(layoutSeed)), goal) as string[];
};

describe('keys-and-doors env', () => {
  it('every house can be opened: each key lies on the near side of its door', () => {
    for (let seed = 0; seed < 200; seed++) {
      const layout = generateLayout(seed);
      const doors = layout.links.filter((l) => l.door);
      const keys = layout.items.filter((i) => i.metal);
      expect(doors.length).toBeGreaterThan(0);
      expect(keys.length).toBeGreaterThan(doors.length);
      const game = new KeysAndDoorsGame(layout);
      for (const link of doors) {
        const key = keys.find((k) => k.metal === link.door?.lock);
        const keyRegion = layout.region[game.roomOf(key?.place ?? { room: '' }) ?? ''] ?? -1;
        const far = Math.max(...link.rooms.map((r) => layout.region[r] ?? -1));
        expect(keyRegion).toBeGreaterThanOrEqual(0);
        expect(keyRegion).toBeLessThan(far);
      }
      for (const room of layout.rooms.slice(1)) {
        expect(layout.links.some((l) => across(l, room))).toBe(true);
      }
    }
  });

  it('reward 1 comes when the hidden state meets the goal, and not before', async () => {
    for (const task of testTasks.slice(0, 6)) {
      const env = new KeysAndDoorsEnv();
      await env.reset({ task });
      const plan = planOf(task);
      expect(plan.length).toBeGreaterThanOrEqual(MIN_PLAN);
      for (const [i, command] of plan.entries()) {
        const result = await env.step(command);
        expect(result.info.invalidAction).toBeUndefined();
        const last = i === plan.length - 1;
        expect(result).toMatchObject({ reward: last ? 1 : 0, terminated: last, truncated: false });
      }
    }
  });

  it('a wrong key ends the episode with 0; inadmissible commands change nothing', async () => {
    let jammed = 0;
    for (const task of testTasks) {
      const env = new KeysAndDoorsEnv();
      const { observation } = await env.reset({ task });
      const refused = await env.step('fly north');
      expect(refused.info.invalidAction).toMatch(/not a command here/);
      expect(refused.observation).toEqual(observation);
      const { layoutSeed } = keysAndDoorsSpec(task);
      const game = new KeysAndDoorsGame(generateLayout(layoutSeed));
      const take = game.admissibleCommands().find((c) => / key$/.test(c) && c.startsWith('take '));
      if (!take) continue;
      await env.step(take);
      game.execute(take);
      const wrong = game.admissibleCommands().find((c) => {
        const [, door, key] = /^unlock (.+) with (.+)$/.exec(c) ?? [];
        return (
          door &&
          game.exits().find((e) => e.link.door?.name === door)?.link.door?.lock !==
            game.metalOf(key as string)
        );
      });
      if (!wrong) continue;
      const result = await env.step(wrong);
      expect(result).toMatchObject({ reward: 0, terminated: true, truncated: false });
      expect(result.observation.text).toMatch(/jammed for good/);
      jammed++;
    }
    expect(jammed).toBeGreaterThan(0);
  });

  it('tasks are deterministic and split apart; foreign or spec-less tasks are refused', async () => {
    expect(keysAndDoorsTask(777)).toEqual(keysAndDoorsTask(777));
    expect(keysAndDoorsTasks('train', 2).map((t) => t.id)).toEqual([
      'keys-and-doors/500',
      'keys-and-doors/501',
    ]);
    const env = new KeysAndDoorsEnv();
    await expect(
      env.reset({ task: { ...(testTasks[0] as Task), env: 'household' } }),
    ).rejects.toThrow(TaskError);
    const { spec: _, ...bare } = testTasks[0] as Task;
    await expect(env.reset({ task: bare })).rejects.toThrow(/no keys-and-doors spec/);
  });
});
