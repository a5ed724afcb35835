import type { KeysAndDoorsGame, KeysGoal } from './game.ts';
import { across, type Layout, type Link } from './layout.ts';
import type { Direction } from './words.ts';

/** How deep fetching a key for a door may nest (keys behind doors whose keys are behind …). */
const MAX_NESTING = 8;

/**
 * The next command on a shortest sensible way to `goal` from the game's true state, for a player
 * who knows the whole house: fetch the thing (going there, opening its container), carry it to
 * the room or container, leave it there. A locked door on the way is unlocked with its own key,
 * fetched first the same way. Undefined when the goal holds, or can no longer be reached (its
 * thing or a needed key broke).
 */
export function nextCommand(game: KeysAndDoorsGame, goal: KeysGoal): string | undefined {
  if (game.reached(goal)) return undefined;
  if (!game.held().includes(goal.thing)) return obtain(game, goal.thing, 0);
  const target = goal.kind === 'bring' ? goal.room : game.roomOf({ container: goal.container });
  if (target === undefined) return undefined;
  if (game.location !== target) return reach(game, target, 0);
  if (goal.kind === 'bring') return `drop ${goal.thing}`;
  return game.isOpen(goal.container)
    ? `put ${goal.thing} in ${goal.container}`
    : `open ${goal.container}`;
}

/**
 * The commands that reach `goal` from the game's state (played on the game itself, so pass a
 * copy), or undefined when it cannot be reached within `limit` commands.
 */
export function solve(game: KeysAndDoorsGame, goal: KeysGoal, limit = 100): string[] | undefined {
  const plan: string[] = [];
  while (!game.reached(goal)) {
    const command = nextCommand(game, goal);
    if (command === undefined || plan.length >= limit) return undefined;
    plan.push(command);
    game.execute(command);
  }
  return plan;
}

/** The way from one room to another: each step's link and direction. */
function route(layout: Layout, from: string, to: string): Array<{ link: Link; dir: Direction }> {
  const back = new Map<string, { room: string; link: Link; dir: Direction }>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const room = queue.shift() as string;
    if (room === to) break;
    for (const link of layout.links) {
      const next = across(link, room);
      if (!next || seen.has(next.room)) continue;
      seen.add(next.room);
      back.set(next.room, { room, link, dir: next.dir });
      queue.push(next.room);
    }
  }
  const steps: Array<{ link: Link; dir: Direction }> = [];
  for (let room = to; room !== from; ) {
    const step = back.get(room);
    if (!step) return [];
    steps.unshift({ link: step.link, dir: step.dir });
    room = step.room;
  }
  return steps;
}

function obtain(game: KeysAndDoorsGame, item: string, depth: number): string | undefined {
  const place = game.whereIs(item);
  const room = game.roomOf(place);
  if (room === undefined) return undefined;
  if (game.location !== room) return reach(game, room, depth);
  if ('container' in place && !game.isOpen(place.container)) return `open ${place.container}`;
  return `take ${item}`;
}

function reach(game: KeysAndDoorsGame, room: string, depth: number): string | undefined {
  if (depth > MAX_NESTING) return undefined;
  const steps = route(game.layout, game.location, room);
  const blocked = steps.findIndex((s) => s.link.door && !game.isUnlocked(s.link.door.name));
  const first = steps[0];
  if (!first) return undefined;
  if (blocked < 0) return `go ${first.dir}`;
  const door = steps[blocked]?.link.door as { name: string; lock: string };
  const key = game.held().find((i) => game.metalOf(i) === door.lock);
  if (!key) return obtain(game, `${door.lock} key`, depth + 1);
  return blocked === 0 ? `unlock ${door.name} with ${key}` : `go ${first.dir}`;
}
