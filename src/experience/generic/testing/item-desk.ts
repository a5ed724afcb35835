/**
 * A tiny tool-calling env the generic experience model's tests learn from, written for them
 * and modelled by nobody: owners hold items (`K-1234`) of a colour, open or closed.
 * `find[name]` lists an owner's items, `get_item[K-1234]` shows one (`{"error":"not_found",…}`
 * for an unknown id), `close_item[K-1234]` closes one (a change that does not end the episode),
 * `done[text]` ends it. A task asks for an owner's item of a colour to be closed, or for the
 * colour of an owner's only open item; reward 1 when the right item is closed and no other (or
 * the answer is right), else 0. Its expert errs with probability ε (a mistyped id, a wrong item,
 * an early `done`), so the buffer holds not-founds, failures and successes.
 */
import { Rng } from '../../../core/rng.ts';
import type { Observation, Step, Task, Trajectory } from '../../../core/types.ts';

const NAMES = ['Ann Lee', 'Bo Park', 'Cy Hart', 'Di Moss', 'Ed Ruiz', 'Flo Dunn', 'Gus Vale'];
const COLOURS = ['red', 'blue', 'green', 'amber', 'violet', 'teal'];

interface Item {
  id: string;
  owner: string;
  colour: string;
  status: 'open' | 'closed';
}

interface Goal {
  kind: 'close' | 'ask';
  owner: string;
  item: string;
  colour: string;
}

/** Task `i` of the item desk: its own items (from the task's seed) and goal. */
export function itemDeskTask(i: number): Task {
  const { goal } = world(i);
  const instruction =
    goal.kind === 'close'
      ? `Please close the ${goal.colour} item of ${goal.owner}.`
      : `What colour is the open item of ${goal.owner}? Answer with the colour.`;
  return { id: `item-desk/${i}`, env: 'item-desk', instruction, spec: { i }, origin: 'seed' };
}

function world(i: number): { items: Item[]; goal: Goal } {
  const rng = new Rng(i).fork('item-desk');
  const owners = rng.sample(NAMES, 3);
  const items: Item[] = [];
  const used = new Set<number>();
  for (const owner of owners) {
    for (const colour of rng.sample(COLOURS, 2 + rng.int(2))) {
      let n = 1000 + rng.int(9000);
      while (used.has(n)) n = 1000 + rng.int(9000);
      used.add(n);
      items.push({ id: `K-${n}`, owner, colour, status: rng.chance(0.3) ? 'closed' : 'open' });
    }
  }
  const owner = owners[0] as string;
  const mine = items.filter((it) => it.owner === owner);
  const target = rng.pick(mine);
  const kind = i % 2 === 0 ? 'close' : 'ask';
  if (kind === 'ask') for (const it of mine) it.status = it === target ? 'open' : 'closed';
  else target.status = 'open';
  return { items, goal: { kind, owner, item: target.id, colour: target.colour } };
}

/** The item desk as a plain state machine (the tests need no Env wrapper around it). */
export class ItemDesk {
  private readonly items: Item[];
  private readonly goal: Goal;
  private readonly shown = new Set<string>();
  private readonly closedByAgent = new Set<string>();
  private last: Record<string, unknown> = { desk: 'ready' };

  constructor(readonly task: Task) {
    const made = world(task.spec?.i as number);
    this.items = made.items;
    this.goal = made.goal;
  }

  observe(): Observation {
    return {
      text: JSON.stringify(this.last),
      instruction: this.task.instruction,
      actions: [
        'find[<name>]',
        ...[...this.shown].flatMap((id) => [`get_item[${id}]`, `close_item[${id}]`]),
        'done[<text>]',
      ],
    };
  }

  /** One step: the observation, reward, whether it ended, and why an action was refused. */
  step(action: string): { reward: number; terminated: boolean; invalid?: string } {
    const call = /^(\w+)\[(.+)\]$/.exec(action.trim());
    if (!call) return { reward: 0, terminated: false, invalid: `"${action}" is not a call` };
    const [, tool, arg] = call as unknown as [string, string, string];
    if (tool === 'find') {
      const found = this.items.filter((it) => it.owner.toLowerCase() === arg.toLowerCase());
      for (const it of found) this.shown.add(it.id);
      this.last = { items: found.map((it) => ({ id: it.id, owner: it.owner })) };
      return { reward: 0, terminated: false };
    }
    if (tool === 'done') {
      this.last = { ok: true, done: arg };
      const closed = this.items.filter((it) => it.status === 'closed' && it.id === this.goal.item);
      const success =
        this.goal.kind === 'ask'
          ? arg.trim().toLowerCase() === this.goal.colour
          : closed.length === 1 && this.closedByAgent.size === 1;
      return { reward: success ? 1 : 0, terminated: true };
    }
    const item = this.items.find((it) => it.id === arg);
    if (tool !== 'get_item' && tool !== 'close_item')
      return { reward: 0, terminated: false, invalid: `unknown tool ${tool}` };
    if (!item) {
      this.last = { error: 'not_found', message: `no item ${arg}` };
      return { reward: 0, terminated: false };
    }
    this.shown.add(item.id);
    if (tool === 'get_item') this.last = { ...item };
    else {
      item.status = 'closed';
      this.closedByAgent.add(item.id);
      this.last = { ok: true, item: item.id, status: 'closed' };
    }
    return { reward: 0, terminated: false };
  }

  /** The expert's next action: find, read every item, act; with probability ε a mistake. */
  expertAction(history: readonly Step[], rng: Rng, epsilon: number): string {
    const goal = this.goal;
    const err = rng.chance(epsilon);
    if (history.length === 0) return `find[${goal.owner}]`;
    const mine = this.items.filter((it) => it.owner === goal.owner).map((it) => it.id);
    const read = new Set(history.map((s) => s.action));
    const unread = mine.find((id) => !read.has(`get_item[${id}]`));
    if (err && rng.chance(0.5)) return `get_item[K-${1000 + rng.int(9000)}]`;
    if (unread) return `get_item[${unread}]`;
    if (goal.kind === 'ask') return `done[${err ? rng.pick(COLOURS) : goal.colour}]`;
    const target = err ? (rng.pick(mine) as string) : goal.item;
    if (!read.has(`close_item[${target}]`)) return `close_item[${target}]`;
    return 'done[closed]';
  }
}

/** Episodes of the item desk's expert on tasks `from` … `from + count - 1`. */
export function itemDeskEpisodes(from: number, count: number, epsilon = 0.2): Trajectory[] {
  const out: Trajectory[] = [];
  for (let i = from; i < from + count; i++) {
    const task = itemDeskTask(i);
    const desk = new ItemDesk(task);
    const rng = new Rng(i).fork('item-desk-expert');
    const initial = desk.observe();
    const steps: Step[] = [];
    for (let t = 0; t < 12; t++) {
      const action = desk.expertAction(steps, rng, epsilon);
      const result = desk.step(action);
      steps.push({
        action,
        observation: desk.observe(),
        reward: result.reward,
        terminated: result.terminated,
        truncated: false,
        ...(result.invalid !== undefined && { info: { invalidAction: result.invalid } }),
      });
      if (result.terminated) break;
    }
    out.push({
      id: `item-desk-${i}`,
      env: 'item-desk',
      task,
      initial,
      steps,
      provenance: 'real-offline',
      policyId: `item-desk-expert(eps=${epsilon})`,
      startedAt: new Date(0).toISOString(),
      endedAt: new Date(0).toISOString(),
    });
  }
  return out;
}
