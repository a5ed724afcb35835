/**
 * The household experience model's episode memory: what the episode so far has shown (rooms,
 * contents, doors, the hand, object states, lamps), rebuilt from the history at each prediction.
 */
import { memoize } from '../../core/memo.ts';
import type { Observation, Step } from '../../core/types.ts';
import {
  type Command,
  parseCommand as parseCommandText,
  parseFeedback as parseFeedbackText,
  STATE_WORD,
} from '../../envs/formats/alfworld-grammar.ts';

// Each prediction re-reads the whole episode, so the same commands and feedback are parsed again
// and again: remember the parses (the grammar's parsers are pure; nothing here mutates a parse).
export const parseCommand = memoize(parseCommandText);
export const parseFeedback = memoize(parseFeedbackText);
type Feedback = ReturnType<typeof parseFeedback>;

/** What the episode so far has shown: the model's episode memory. */
export interface Memory {
  receptacles: Set<string>;
  location?: string;
  /** Receptacle → its contents, once revealed. */
  contents: Map<string, string[]>;
  /** Openable receptacle → open? (absent: closed as far as we know). */
  open: Map<string, boolean>;
  visited: Set<string>;
  holding?: string;
  /** Object → its states (`hot`, `cool`, `clean`). */
  states: Map<string, Set<string>>;
  /** Lamp → the receptacle it stands at. */
  lamps: Map<string, string>;
  lampsOn: Set<string>;
  /** Every entity name seen this episode (to number new objects). */
  names: Set<string>;
  /** Receptacles the env showed without open/close commands while there. */
  fixed: Set<string>;
}

/** Rebuilds the episode memory from the history and the current state. */
export function rememberEpisode(history: readonly Step[], state: Observation): Memory {
  const memory: Memory = {
    receptacles: new Set(),
    contents: new Map(),
    open: new Map(),
    visited: new Set(),
    states: new Map(),
    lamps: new Map(),
    lampsOn: new Set(),
    names: new Set(),
    fixed: new Set(),
  };
  const observations = [...history.map((s) => s.observation), state];
  for (const o of observations) {
    const f = parseFeedback(o.text);
    if (f.kind === 'start') for (const r of f.receptacles) memory.receptacles.add(r);
    for (const a of o.actions ?? []) {
      const c = parseCommand(a);
      if (c?.verb === 'go') memory.receptacles.add(c.target);
    }
  }
  if (history.length === 0) observe(memory, state);
  for (const step of history) {
    const command = parseCommand(step.action);
    const f = parseFeedback(step.observation.text);
    if (command && matches(command, f)) effect(memory, f);
    observe(memory, step.observation);
  }
  return memory;
}

/** Notes the lamps a state offers at the current location and every name it mentions. */
function observe(memory: Memory, o: Observation): void {
  const at = memory.location;
  if (at !== undefined && o.actions) {
    if (o.actions.includes(`close ${at}`)) memory.open.set(at, true);
    else if (o.actions.includes(`open ${at}`)) memory.open.set(at, false);
    else memory.fixed.add(at);
  }
  for (const a of o.actions ?? []) {
    const c = parseCommand(a);
    if (!c) continue;
    if (c.verb === 'use' && memory.location) memory.lamps.set(c.target, memory.location);
    if (c.verb === 'take' || c.verb === 'move') memory.names.add(c.object);
    if (c.verb === 'examine') memory.names.add(c.target);
  }
}

/** Applies what an observed feedback sentence says happened. */
function effect(memory: Memory, f: Feedback): void {
  const reveal = (at: string, contents: readonly string[]) => {
    memory.contents.set(at, [...contents]);
    for (const o of contents) memory.names.add(o);
  };
  switch (f.kind) {
    case 'arrive':
      memory.location = f.at;
      memory.visited.add(f.at);
      memory.receptacles.add(f.at);
      if (f.closed) memory.open.set(f.at, false);
      if (f.contents) reveal(f.at, f.contents);
      break;
    case 'open':
      memory.open.set(f.at, true);
      reveal(f.at, f.contents);
      break;
    case 'close':
      memory.open.set(f.at, false);
      break;
    case 'take': {
      const list = memory.contents.get(f.from);
      if (list)
        memory.contents.set(
          f.from,
          list.filter((o) => o !== f.object),
        );
      memory.holding = f.object;
      memory.names.add(f.object);
      break;
    }
    case 'move': {
      const list = memory.contents.get(f.to) ?? [];
      if (!list.includes(f.object)) list.push(f.object);
      memory.contents.set(f.to, list);
      memory.holding = undefined;
      break;
    }
    case 'transform': {
      const states = memory.states.get(f.object) ?? new Set<string>();
      states.add(STATE_WORD[f.verb]);
      memory.states.set(f.object, states);
      break;
    }
    case 'use':
      memory.lampsOn.add(f.lamp);
      if (memory.location) memory.lamps.set(f.lamp, memory.location);
      break;
    case 'examine-receptacle':
      if (f.closed === true) memory.open.set(f.at, false);
      else {
        if (f.closed === false) memory.open.set(f.at, true);
        reveal(f.at, f.contents);
      }
      break;
    case 'inventory':
      memory.holding = f.holding;
      break;
    case 'look':
      memory.location = f.facing;
      for (const lamp of f.nextTo) memory.lamps.set(lamp, f.facing);
      break;
    default:
      break;
  }
}

/** Does the feedback text report the effect of this command? (else the command failed). */
function matches(c: Command, f: Feedback): boolean {
  switch (c.verb) {
    case 'go':
      return f.kind === 'arrive' && f.at === c.target;
    case 'open':
      return f.kind === 'open' && f.at === c.target;
    case 'close':
      return f.kind === 'close' && f.at === c.target;
    case 'take':
      return f.kind === 'take' && f.object === c.object;
    case 'move':
      return f.kind === 'move' && f.object === c.object;
    case 'heat':
    case 'cool':
    case 'clean':
      return f.kind === 'transform' && f.verb === c.verb && f.object === c.object;
    case 'use':
      return f.kind === 'use' && f.lamp === c.target;
    case 'examine':
      return f.kind === 'examine-receptacle' || f.kind === 'examine-object';
    case 'inventory':
      return f.kind === 'inventory';
    case 'look':
      return f.kind === 'look';
  }
}

/** A new name for an object of `type` that the episode has not used: `mug 3`. */
export function freshName(memory: Memory, type: string): string {
  let n = 1;
  while (memory.names.has(`${type} ${n}`)) n++;
  const name = `${type} ${n}`;
  memory.names.add(name);
  return name;
}

/** The lamps known to stand at a receptacle. */
export function lampsAt(memory: Memory, at: string): string[] {
  return [...memory.lamps].filter(([, r]) => r === at).map(([l]) => l);
}
