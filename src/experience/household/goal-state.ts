/** Public ALFWorld task semantics over the episode memory: does the goal hold, and its wording. */
import { type Goal, requiredState, typeOf } from '../../envs/formats/alfworld-grammar.ts';
import type { Memory } from './episode-memory.ts';

/** Objects of `type` in the hand or seen in receptacles. */
export function countOf(memory: Memory, type: string): number {
  let n = memory.holding !== undefined && typeOf(memory.holding) === type ? 1 : 0;
  for (const list of memory.contents.values()) n += list.filter((o) => typeOf(o) === type).length;
  return n;
}

/** Public ALFWorld success conditions. */
export function goalHolds(memory: Memory, goal: Goal): boolean {
  if (goal.type === 'look_at_obj_in_light') {
    const held = memory.holding;
    if (held === undefined || typeOf(held) !== goal.object) return false;
    return [...memory.lampsOn].some(
      (l) => typeOf(l) === goal.light && memory.lamps.get(l) === memory.location,
    );
  }
  const need = goal.type === 'pick_two_obj_and_place' ? 2 : 1;
  const state = requiredState(goal);
  let n = 0;
  for (const [r, list] of memory.contents) {
    if (typeOf(r) !== goal.receptacle) continue;
    n += list.filter(
      (o) =>
        typeOf(o) === goal.object &&
        (state === undefined || memory.states.get(o)?.has(state) === true),
    ).length;
  }
  return n >= need;
}

/** The goal in words, for the model's reasoning. */
export function describeGoal(goal: Goal): string {
  if (goal.type === 'look_at_obj_in_light')
    return `hold a ${goal.object} under a lit ${goal.light}`;
  const state = requiredState(goal);
  const count = goal.type === 'pick_two_obj_and_place' ? 'two' : 'a';
  return `${count} ${state ? `${state} ` : ''}${goal.object} in a ${goal.receptacle}`;
}
