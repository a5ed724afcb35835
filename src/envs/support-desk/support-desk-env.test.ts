import { describe, expect, it } from 'vitest';
import { TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import { generateDb, money, orderTotalCents, type SupportDb } from './db.ts';
import { SupportDeskExpert } from './expert.ts';
import { makeSupportDesk, SupportDeskEnv } from './support-desk-env.ts';
import {
  type SupportDeskSpec,
  supportDeskSpec,
  supportDeskTask,
  supportDeskTasks,
} from './tasks.ts';

const testTasks = supportDeskTasks('test', 10);
const expert = new SupportDeskExpert();

runEnvConformance(
  { name: 'support-desk', makeEnv: () => makeSupportDesk({ split: 'test' }), task: testTasks[0] },
  { describe, it },
);

runEnvConformance(
  {
    name: 'support-desk driven by the expert',
    makeEnv: () => new SupportDeskEnv(),
    solve: async (observation, task, history) =>
      (await expert.act(observation, { task, history, rng: new Rng(0) })).action,
    maxSteps: 20,
  },
  { describe, it },
);

/** The first test task of a goal kind, its spec and hidden database. */
function taskOfKind(kind: string): { task: Task; spec: SupportDeskSpec; db: SupportDb } {
  const task = testTasks.find((t) => supportDeskSpec(t).goal.kind === kind) as Task;
  const spec = supportDeskSpec(task);
  return { task, spec, db: generateDb(spec.dbSeed) };
}

/** A fresh env reset to `task` and brought to where the goal's customer and orders are shown. */
async function atCustomer(task: Task) {
  const env = new SupportDeskEnv();
  await env.reset({ task });
  const { goal } = supportDeskSpec(task);
  await env.step(`get_customer[${goal.customer}]`);
  return env;
}

describe('support desk', () => {
  it('opens a ticket and answers tool calls in JSON, listing only the ids it has shown', async () => {
    const { task, spec, db } = taskOfKind('status');
    const env = new SupportDeskEnv();
    const { observation } = await env.reset({ task });
    expect(JSON.parse(observation.text)).toMatchObject({ ticket: 'open' });
    expect(observation.actions).toEqual(['find_customer[<name>]', 'answer[<text>]']);

    const customer = db.customers.find((c) => c.id === spec.goal.customer);
    const found = await env.step(`find_customer[${customer?.name}]`);
    const listed = JSON.parse(found.observation.text).customers as Array<{ id: string }>;
    expect(listed.map((c) => c.id)).toContain(customer?.id);
    expect(found.observation.actions).toContain(`get_customer[${customer?.id}]`);
    expect(found.observation.actions?.some((a) => a.startsWith('get_order['))).toBe(false);

    const record = await env.step(`get_customer[${customer?.id}]`);
    expect(JSON.parse(record.observation.text).orders).toEqual(customer?.orders);
    for (const id of customer?.orders ?? []) {
      expect(record.observation.actions).toContain(`cancel_order[${id}]`);
    }
    const order = await env.step(`get_order[${spec.goal.order}]`);
    const shown = JSON.parse(order.observation.text);
    const truth = db.orders.find((o) => o.id === spec.goal.order);
    expect(shown.status).toBe(truth?.status);
    expect(shown.total).toBe(money(orderTotalCents(db, truth as never)));
    expect(shown.items.map((i: { product: string }) => i.product)).toContain(spec.goal.product);
  });

  it('a lookup that finds nothing and a refused change are tool answers, not invalid actions', async () => {
    const { task, db } = taskOfKind('status');
    const env = new SupportDeskEnv();
    await env.reset({ task });
    const missing = await env.step('get_order[O-0000]');
    expect(missing.info.invalidAction).toBeUndefined();
    expect(JSON.parse(missing.observation.text)).toEqual({
      error: 'not_found',
      message: 'no order O-0000',
    });
    const shipped = db.orders.find((o) => o.status === 'shipped');
    const refused = await env.step(`cancel_order[${shipped?.id}]`);
    expect(refused.terminated).toBe(false);
    expect(JSON.parse(refused.observation.text).error).toBe('not_allowed');
  });

  it('malformed calls and unknown tools change nothing and say why', async () => {
    const env = new SupportDeskEnv();
    const { observation } = await env.reset({ task: testTasks[0] as Task });
    for (const [action, why] of [
      ['get_order O-1234', /not a tool call/],
      ['delete_order[O-1234]', /unknown tool "delete_order"/],
      ['get_order[]', /needs an argument/],
    ] as const) {
      const result = await env.step(action);
      expect(result.info.invalidAction).toMatch(why);
      expect(result.observation).toEqual(observation);
      expect(result.reward).toBe(0);
    }
  });

  it('cancelling the right order earns 1; cancelling another pending order ends the ticket with 0', async () => {
    const { task, spec, db } = taskOfKind('cancel');
    const right = await atCustomer(task);
    const done = await right.step(`cancel_order[${spec.goal.order}]`);
    expect(done).toMatchObject({ reward: 1, terminated: true, truncated: false });
    expect(JSON.parse(done.observation.text)).toEqual({
      ok: true,
      order: spec.goal.order,
      status: 'cancelled',
    });

    const other = db.orders.find((o) => o.status === 'pending' && o.id !== spec.goal.order);
    const wrong = await atCustomer(task);
    expect(await wrong.step(`cancel_order[${other?.id}]`)).toMatchObject({
      reward: 0,
      terminated: true,
    });
    const refunded = await atCustomer(task);
    expect((await refunded.step(`refund[${spec.goal.order}]`)).terminated).toBe(false);
  });

  it('answers are checked against the hidden database', async () => {
    const { task, spec, db } = taskOfKind('status');
    const status = db.orders.find((o) => o.id === spec.goal.order)?.status as string;
    const other = ['pending', 'shipped', 'delivered', 'cancelled'].find((s) => s !== status);
    const reward = async (t: Task, answer: string) =>
      (await (await atCustomer(t)).step(`answer[${answer}]`)).reward;
    expect(await reward(task, `It is ${status}.`)).toBe(1);
    expect(await reward(task, `${other}`)).toBe(0);
    expect(await reward(task, `${status} or ${other}`)).toBe(0);

    const total = taskOfKind('total');
    const order = total.db.orders.find((o) => o.id === total.spec.goal.order);
    const cents = orderTotalCents(total.db, order as never);
    expect(await reward(total.task, `$${money(cents)}`)).toBe(1);
    expect(await reward(total.task, money(cents + 100))).toBe(0);

    const count = taskOfKind('count-shipped');
    const shipped = count.db.orders.filter(
      (o) => o.customer === count.spec.goal.customer && o.status === 'shipped',
    ).length;
    expect(await reward(count.task, String(shipped))).toBe(1);
    expect(await reward(count.task, String(shipped + 1))).toBe(0);
    expect(await reward(taskOfKind('cancel').task, 'done')).toBe(0);
  });

  it('tasks are deterministic, split apart, and name their order by a product only its customer has once', () => {
    expect(supportDeskTask(523)).toEqual(supportDeskTask(523));
    expect(supportDeskTasks('train', 3).map((t) => t.id)).toEqual([
      'support-desk/500',
      'support-desk/501',
      'support-desk/502',
    ]);
    for (const task of [...testTasks, ...supportDeskTasks('train', 20)]) {
      const { goal, dbSeed } = supportDeskSpec(task);
      const db = generateDb(dbSeed);
      const customer = db.customers.find((c) => c.id === goal.customer);
      expect(task.instruction).toContain(`${customer?.name}`);
      if (goal.kind === 'count-shipped') continue;
      const withProduct = (customer?.orders ?? []).filter((id) =>
        db.orders
          .find((o) => o.id === id)
          ?.lines.some((l) => db.products.find((p) => p.id === l.product)?.name === goal.product),
      );
      expect(withProduct).toEqual([goal.order]);
      expect(task.instruction).toContain(goal.product);
    }
  });

  it('every task of the default splits generates, namesakes in every town included', () => {
    // Tasks 304 and 870 once drew a namesake whose name already lived in every town.
    expect(supportDeskTasks('test').length).toBe(500);
    expect(supportDeskTasks('train').length).toBe(1000);
    const db = generateDb(supportDeskSpec(supportDeskTask(304)).dbSeed);
    const placed = new Set(db.customers.map((c) => `${c.name}/${c.town}`));
    expect(placed.size).toBe(db.customers.length);
  });

  it('refuses tasks of another env or without a spec', async () => {
    const env = new SupportDeskEnv();
    const foreign = { ...(testTasks[0] as Task), env: 'webshop' };
    await expect(env.reset({ task: foreign })).rejects.toThrow(TaskError);
    const { spec: _, ...bare } = testTasks[0] as Task;
    await expect(env.reset({ task: bare })).rejects.toThrow(/no support-desk spec/);
  });
});
