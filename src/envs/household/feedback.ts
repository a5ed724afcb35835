/**
 * ALFWorld's text, word for word: what its TextWorld engine prints for each command (after the
 * grammar of `alfred.twl2`, checked against real ALFWorld transcripts in `feedback.test.ts`).
 *
 * Quirks kept on purpose, because agents trained here should read ALFWorld's real text:
 * every name takes "a" (`a egg 1`); lists end in ", and" even for two items; things are listed
 * by type name, higher numbers first (`a cabinet 2, a cabinet 1, a countertop 1`).
 */

import type { Treatment } from './vocabulary.ts';

/** ALFWorld's reply to any command it cannot carry out. */
export const NOTHING_HAPPENS = 'Nothing happens.';

/** ALFWorld's listing order: by type name, then higher numbers first. */
export function alfworldOrder(names: readonly string[]): string[] {
  const key = (name: string) => {
    const space = name.lastIndexOf(' ');
    return { type: name.slice(0, space), n: Number(name.slice(space + 1)) };
  };
  return [...names].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka.type < kb.type ? -1 : ka.type > kb.type ? 1 : kb.n - ka.n;
  });
}

/** `x`, `x, and y`, `x, y, and z`; `nothing` for none. */
function joinList(items: readonly string[]): string {
  if (items.length === 0) return 'nothing';
  if (items.length === 1) return items[0] as string;
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

/** `a apple 1, a cup 2, and a mug 1` in ALFWorld's order. */
export function listThings(names: readonly string[]): string {
  return joinList(alfworldOrder(names).map((name) => `a ${name}`));
}

/** The opening line and `look` from the middle of the room. */
export function lookAround(receptacles: readonly string[]): string {
  return `You are in the middle of a room. Looking quickly around you, you see ${listThings(receptacles)}.`;
}

/** `look` at a receptacle: what stands there and what lies on the floor next to it. */
export function lookFacing(receptacles: readonly string[], onFloor: readonly string[]): string {
  return `You are facing the ${joinList(alfworldOrder(receptacles))}. Next to it, you see ${listThings(onFloor)}.`;
}

/** The first observation: the room, a blank line, and the task. */
export function intro(receptacles: readonly string[], instruction: string): string {
  return `${lookAround(receptacles)}\n\nYour task is to: ${instruction}`;
}

export interface ReceptacleView {
  name: string;
  openable: boolean;
  open: boolean;
  /** What is in it (ignored while it is closed). */
  contents: readonly string[];
}

/** `examine` of a receptacle, and the second half of arriving at or opening one. */
export function describeReceptacle(r: ReceptacleView): string {
  if (r.openable && r.open)
    return `The ${r.name} is open. In it, you see ${listThings(r.contents)}.`;
  if (r.openable) return `The ${r.name} is closed.`;
  return `On the ${r.name}, you see ${listThings(r.contents)}.`;
}

export function arrived(r: ReceptacleView): string {
  return `You arrive at ${r.name}. ${describeReceptacle(r)}`;
}

export function opened(r: ReceptacleView): string {
  return `You open the ${r.name}. ${describeReceptacle({ ...r, open: true })}`;
}

export function closed(receptacle: string): string {
  return `You close the ${receptacle}.`;
}

export function pickedUp(object: string, receptacle: string): string {
  return `You pick up the ${object} from the ${receptacle}.`;
}

export function moved(object: string, receptacle: string): string {
  return `You move the ${object} to the ${receptacle}.`;
}

/** The reply of ALFWorld versions that took `put X in/on Y` instead of `move X to Y`. */
export function put(object: string, receptacle: string): string {
  return `You put the ${object} in/on the ${receptacle}.`;
}

export function treated(treatment: Treatment, object: string, appliance: string): string {
  return `You ${treatment} the ${object} using the ${appliance}.`;
}

export function sliced(object: string, blade: string): string {
  return `You sliced the ${object} with the ${blade}.`;
}

export function toggled(object: string, on: boolean): string {
  return `You turn ${on ? 'on' : 'off'} the ${object}.`;
}

export function inventory(held: string | undefined): string {
  return held === undefined ? 'You are not carrying anything.' : `You are carrying: a ${held}.`;
}

export interface ObjectView {
  name: string;
  /** A receptacle object (bowl, mug, box): described by what is in it. */
  container: boolean;
  /** Has an on/off switch (lamps). */
  toggleable: boolean;
  sliceable: boolean;
  clean: boolean;
  hot: boolean;
  cool: boolean;
  sliced: boolean;
  on: boolean;
}

/** `examine` of an object: ALFWorld's first matching description, in its grammar's order. */
export function examineObject(o: ObjectView): string {
  const name = o.name;
  // Our receptacle objects never hold anything: PDDL's put-into-object actions are disabled.
  if (o.container) return `This is a normal ${name}. In it, you see nothing.`;
  if (o.clean && o.hot && o.sliced) return `This is a hot and clean sliced ${name}.`;
  if (o.clean && o.cool && o.sliced) return `This is a cool and clean sliced ${name}.`;
  if (o.clean && o.sliced) return `This is a clean sliced ${name}.`;
  if (o.hot && o.sliced) return `This is a hot sliced ${name}.`;
  if (o.cool && o.sliced) return `This is a cool sliced ${name}.`;
  if (o.clean && o.hot) return `This is a hot and clean ${name}.`;
  if (o.clean && o.cool) return `This is a cool and clean ${name}.`;
  if (o.hot) return `This is a hot ${name}.`;
  if (o.clean) return `This is a clean ${name}.`;
  if (o.cool) return `This is a cold ${name}.`;
  if (o.toggleable) return `This ${name} is ${o.on ? 'on' : 'off'}.`;
  if (o.sliceable && o.sliced) return `This is a sliced ${name}.`;
  return `There's nothing special about ${name}.`;
}
