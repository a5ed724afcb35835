import { describe, expect, it } from 'vitest';
import { TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Step, Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import { BookingEnv, makeBooking } from './booking-env.ts';
import { BookingExpert } from './expert.ts';
import { bestRoom } from './goals.ts';
import { availableRooms, generateInventory, roomTotal } from './inventory.ts';
import { bookingSpec, bookingTask, bookingTasks } from './tasks.ts';

const testTasks = bookingTasks('test', 12);
const expert = new BookingExpert();

runEnvConformance(
  { name: 'booking', makeEnv: () => makeBooking({ split: 'test' }), task: testTasks[0] },
  { describe, it },
);

runEnvConformance(
  {
    name: 'booking driven by the expert',
    makeEnv: () => new BookingEnv(),
    solve: async (observation, task, history) =>
      (await expert.act(observation, { task, history, rng: new Rng(0) })).action,
    maxSteps: 40,
  },
  { describe, it },
);

/** An env on `task`, played by the expert up to (not including) the first action matching `stop`. */
async function playUntil(task: Task, stop: RegExp) {
  const env = new BookingEnv();
  let { observation } = await env.reset({ task });
  const history: Step[] = [];
  for (;;) {
    const { action } = await expert.act(observation, { task, history, rng: new Rng(0) });
    if (stop.test(action)) return { env, observation };
    const result = await env.step(action);
    history.push({ action, ...result });
    observation = result.observation;
  }
}

describe('booking env', () => {
  it('a form error is a page, not an invalid action; what a page lacks is invalid', async () => {
    const env = new BookingEnv();
    const { observation } = await env.reset({ task: testTasks[0] as Task });
    expect(observation.actions).toContain('set[arrival=<date>]');
    const early = await env.step('click[Search]');
    expect(early.info.invalidAction).toBeUndefined();
    expect(early.observation.text).toMatch(/^! Error: town: choose one of/m);
    for (const action of ['click[Confirm booking]', 'set[phone=555-0100]', 'search[rooms]']) {
      const refused = await env.step(action);
      expect(refused.info.invalidAction, action).toBeTruthy();
      expect(refused.observation).toEqual(early.observation);
    }
  });

  it('confirming the room the request means earns 1; another room, or another guest, ends with 0', async () => {
    for (const task of testTasks.slice(0, 4)) {
      const right = await playUntil(task, /^click\[Confirm booking\]$/);
      expect(await right.env.step('click[Confirm booking]')).toMatchObject({
        reward: 1,
        terminated: true,
        truncated: false,
      });
      const typo = await playUntil(task, /^click\[Confirm booking\]$/);
      await typo.env.step('click[Edit details]');
      await typo.env.step('set[phone=555-9999]');
      await typo.env.step('click[Continue]');
      expect(await typo.env.step('click[Confirm booking]')).toMatchObject({
        reward: 0,
        terminated: true,
      });

      const { inventorySeed, goal } = bookingSpec(task);
      const best = bestRoom(goal, generateInventory(inventorySeed));
      const other = availableRooms(generateInventory(inventorySeed), goal.stay).find(
        (r) => r !== best,
      );
      const wrong = await playUntil(task, /^click\[R-/);
      for (const action of [
        `click[${other?.id}]`,
        'click[Book this room]',
        `set[name=${goal.name}]`,
      ]) {
        expect((await wrong.env.step(action)).info.invalidAction).toBeUndefined();
      }
      await wrong.env.step(`set[phone=${goal.phone}]`);
      await wrong.env.step(`set[breakfast=${goal.breakfast ? 'yes' : 'no'}]`);
      await wrong.env.step('click[Continue]');
      expect(await wrong.env.step('click[Confirm booking]')).toMatchObject({
        reward: 0,
        terminated: true,
      });
    }
  });

  it('tasks ask for a room that is not simply the cheapest listed, and are deterministic', async () => {
    for (const task of [...testTasks, ...bookingTasks('train', 12)]) {
      const { inventorySeed, goal } = bookingSpec(task);
      const inventory = generateInventory(inventorySeed);
      const listed = availableRooms(inventory, goal.stay);
      const best = bestRoom(goal, inventory);
      expect(best).toBeDefined();
      expect(listed.length).toBeGreaterThanOrEqual(3);
      const cheapest = Math.min(...listed.map((r) => roomTotal(r, goal.stay)));
      expect(roomTotal(best as never, goal.stay)).toBeGreaterThan(cheapest);
      expect(task.instruction).toContain(goal.phone);
    }
    expect(bookingTask(612)).toEqual(bookingTask(612));
    expect(bookingTasks('train', 1)[0]?.id).toBe('booking/500');
  });

  it('refuses tasks of another env or without a spec', async () => {
    const env = new BookingEnv();
    await expect(
      env.reset({ task: { ...(testTasks[0] as Task), env: 'webshop' } }),
    ).rejects.toThrow(TaskError);
    const { spec: _, ...bare } = testTasks[0] as Task;
    await expect(env.reset({ task: bare })).rejects.toThrow(/no booking spec/);
  });
});
