import { describe, expect, it } from 'vitest';
import { TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { HouseholdExpert } from '../../policy/experts/household-expert.ts';
import { runEnvConformance } from '../conformance.ts';
import { HouseholdEnv, makeHousehold } from './household-env.ts';
import { generateScene } from './scene.ts';
import { solve } from './solver.ts';
import { householdSpec, householdTasks } from './tasks.ts';
import { HouseholdWorld } from './world.ts';

const testTasks = householdTasks('test', 12);
const expert = new HouseholdExpert();

runEnvConformance(
  {
    name: 'household',
    makeEnv: () => makeHousehold({ split: 'test' }),
    task: testTasks[0],
    invalidAction: 'take the moon from the sky',
  },
  { describe, it },
);

runEnvConformance(
  {
    name: 'household without step limit, driven by the expert',
    makeEnv: () => new HouseholdEnv(),
    solve: async (observation, task, history) =>
      (await expert.act(observation, { task, history, rng: new Rng(0) })).action,
    maxSteps: 30,
  },
  { describe, it },
);

const taskOf = (i: number) => testTasks[i] as Task;

describe('household env', () => {
  it('opens like ALFWorld: the room from its middle, a blank line, the task', async () => {
    const env = new HouseholdEnv();
    const { observation, info } = await env.reset({ task: taskOf(0) });
    const { scene } = householdSpec(taskOf(0));
    expect(info.scene).toEqual(scene);
    expect(observation.text).toMatch(
      /^You are in the middle of a room\. Looking quickly around you, you see a [a-z]+ \d+, .*, and a [a-z]+ \d+\.\n\nYour task is to: .+\.$/,
    );
    expect(observation.text.endsWith(`Your task is to: ${taskOf(0).instruction}`)).toBe(true);
    const receptacles = generateScene(scene).receptacles.map((r) => r.name);
    for (const name of receptacles) expect(observation.text).toMatch(new RegExp(`a ${name}[,.]`));
    expect(observation.actions).toEqual(
      [...receptacles.map((r) => `go to ${r}`), 'inventory', 'look'].sort(
        new Intl.Collator('en', { numeric: true }).compare,
      ),
    );
  });

  it('answers commands with ALFWorld feedback and lists the admissible commands', async () => {
    const env = new HouseholdEnv();
    await env.reset({ task: taskOf(0) });
    const { scene } = householdSpec(taskOf(0));
    const fridge = generateScene(scene).receptacles.find((r) => r.type === 'fridge');
    expect(fridge).toBeDefined();
    const arrived = await env.step(`go to ${fridge?.name}`);
    expect(arrived.observation.text).toBe(
      `You arrive at ${fridge?.name}. The ${fridge?.name} is closed.`,
    );
    expect(arrived.info.feedback).toBe(arrived.observation.text);
    expect(arrived.observation.actions).toContain(`open ${fridge?.name}`);
    const opened = await env.step(`open ${fridge?.name}`);
    expect(opened.observation.text).toMatch(
      new RegExp(
        `^You open the ${fridge?.name}\\. The ${fridge?.name} is open\\. In it, you see (nothing|a .+)\\.$`,
      ),
    );
    expect(opened.observation.actions).toContain(`close ${fridge?.name}`);
    expect((await env.step('inventory')).observation.text).toBe('You are not carrying anything.');
  });

  it('an invalid command changes nothing: same observation, "Nothing happens." in info.feedback', async () => {
    const env = new HouseholdEnv();
    const { observation } = await env.reset({ task: taskOf(1) });
    const result = await env.step('take apple 1 from fridge 1');
    expect(result.observation).toEqual(observation);
    expect(result.reward).toBe(0);
    expect(result.info.feedback).toBe('Nothing happens.');
    expect(result.info.invalidAction).toMatch(/not where you are|no "fridge 1"/);
  });

  it('reaching the goal ends the episode with reward 1; other steps earn 0', async () => {
    const env = new HouseholdEnv();
    for (const task of testTasks) {
      await env.reset({ task });
      const { scene, goal } = householdSpec(task);
      const plan = solve(HouseholdWorld.fromScene(generateScene(scene)), goal) ?? [];
      for (const [t, command] of plan.entries()) {
        const result = await env.step(command);
        const last = t === plan.length - 1;
        expect(result.info.invalidAction, command).toBeUndefined();
        expect(result.reward).toBe(last ? 1 : 0);
        expect(result.terminated).toBe(last);
      }
    }
  });

  it('truncates at the 50-step limit', async () => {
    const env = makeHousehold();
    await env.reset({ seed: 0 });
    let last: Awaited<ReturnType<typeof env.step>> | undefined;
    for (let i = 0; i < 50; i++) last = await env.step(i % 2 === 0 ? 'look' : 'inventory');
    expect(last?.truncated).toBe(true);
    expect(last?.terminated).toBe(false);
    expect(last?.info.truncatedBy).toBe('time-limit');
  });

  it('draws from its own split, and refuses tasks it cannot run, naming why', async () => {
    const ids = async (split: 'train' | 'test') => {
      const env = new HouseholdEnv({ split });
      const out: number[] = [];
      for (let seed = 0; seed < 20; seed++) {
        const { info } = await env.reset({ seed });
        out.push(Number(info.task.id.split('/')[1]));
      }
      return out;
    };
    expect((await ids('test')).every((i) => i < 500)).toBe(true);
    expect((await ids('train')).every((i) => i >= 500)).toBe(true);
    const env = new HouseholdEnv();
    await expect(env.reset({ task: { ...taskOf(0), env: 'webshop' } })).rejects.toBeInstanceOf(
      TaskError,
    );
    await expect(env.reset({ task: { ...taskOf(0), spec: undefined } })).rejects.toThrow(
      /synthetic env/,
    );
  });
});
