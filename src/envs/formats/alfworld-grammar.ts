/**
 * The public text format of ALFWorld-like household envs, written from the observations an agent
 * sees (never from a real env's code): the opening observation, the feedback sentences and the
 * commands. Entities are named `<type> <n>` (`apple 1`, `cabinet 3`).
 */

/** The type of an entity name: `apple 1` → `apple`. */
export function typeOf(name: string): string {
  return name.replace(/\s+\d+$/, '');
}

function numberOf(name: string): number {
  return Number(/(\d+)$/.exec(name)?.[1] ?? 0);
}

/** The env's listing order: type ascending, then number descending. */
export function sortEntities(names: readonly string[]): string[] {
  return [...names].sort((a, b) => {
    const ta = typeOf(a);
    const tb = typeOf(b);
    return ta < tb ? -1 : ta > tb ? 1 : numberOf(b) - numberOf(a);
  });
}

/** `a apple 2, a apple 1, and a knife 2` → [`apple 2`, `apple 1`, `knife 2`]; `nothing` → []. */
export function parseList(text: string): string[] {
  const s = text.trim().replace(/\.$/, '');
  if (s === 'nothing' || s === '') return [];
  return s
    .split(/,\s*(?:and\s+)?/)
    .map((part) => part.replace(/^(?:and\s+)?an?\s+/, '').trim())
    .filter((part) => part.length > 0);
}

/** The inverse of {@link parseList}, in the env's order. */
export function renderList(names: readonly string[]): string {
  const items = sortEntities(names).map((n) => `a ${n}`);
  if (items.length === 0) return 'nothing';
  if (items.length === 1) return items[0] as string;
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

export type Feedback =
  | { kind: 'start'; receptacles: string[]; task?: string }
  | { kind: 'arrive'; at: string; closed: boolean; contents?: string[] }
  | { kind: 'open'; at: string; contents: string[] }
  | { kind: 'close'; at: string }
  | { kind: 'take'; object: string; from: string }
  | { kind: 'move'; object: string; to: string }
  | { kind: 'transform'; verb: Transform; object: string; using: string }
  | { kind: 'use'; lamp: string }
  | { kind: 'examine-receptacle'; at: string; contents: string[]; closed?: boolean }
  | { kind: 'examine-object'; object: string; state?: string; container: boolean }
  | { kind: 'inventory'; holding?: string }
  | { kind: 'look'; facing: string; nextTo: string[] }
  | { kind: 'nothing' }
  | { kind: 'unknown'; text: string };

export type Transform = 'heat' | 'cool' | 'clean';
/** The word the env uses when examining a transformed object (`This is a hot egg 1.`). */
export const STATE_WORD: Record<Transform, string> = { heat: 'hot', cool: 'cold', clean: 'clean' };

const START =
  /^You are in the middle of a room\. Looking quickly around you, you see (.*?)\.(?:\n\nYour task is to: (.*))?$/s;

/** Parses one observation text into the sentence kind it is. */
export function parseFeedback(text: string): Feedback {
  const t = text.trim();
  let m = START.exec(t);
  if (m) {
    return {
      kind: 'start',
      receptacles: parseList(m[1] ?? ''),
      ...(m[2] && { task: m[2].trim() }),
    };
  }
  m = /^You arrive at (.+?)\. The \1 is closed\.$/.exec(t);
  if (m) return { kind: 'arrive', at: m[1] as string, closed: true };
  m = /^You arrive at (.+?)\. The \1 is open\. In it, you see (.*)$/.exec(t);
  if (m)
    return { kind: 'arrive', at: m[1] as string, closed: false, contents: parseList(m[2] ?? '') };
  m = /^You arrive at (.+?)\. On the \1, you see (.*)$/.exec(t);
  if (m)
    return { kind: 'arrive', at: m[1] as string, closed: false, contents: parseList(m[2] ?? '') };
  m = /^You arrive at (.+?)\.$/.exec(t);
  if (m) return { kind: 'arrive', at: m[1] as string, closed: false, contents: [] };
  m = /^You open the (.+?)\. The \1 is open\. In it, you see (.*)$/.exec(t);
  if (m) return { kind: 'open', at: m[1] as string, contents: parseList(m[2] ?? '') };
  m = /^You close the (.+?)\.$/.exec(t);
  if (m) return { kind: 'close', at: m[1] as string };
  m = /^You pick up the (.+?) from the (.+?)\.$/.exec(t);
  if (m) return { kind: 'take', object: m[1] as string, from: m[2] as string };
  m = /^You move the (.+?) to the (.+?)\.$/.exec(t);
  if (m) return { kind: 'move', object: m[1] as string, to: m[2] as string };
  m = /^You (heat|cool|clean) the (.+?) using the (.+?)\.$/.exec(t);
  if (m)
    return {
      kind: 'transform',
      verb: m[1] as Transform,
      object: m[2] as string,
      using: m[3] as string,
    };
  m = /^You turn on the (.+?)\.$/.exec(t);
  if (m) return { kind: 'use', lamp: m[1] as string };
  m = /^On the (.+?), you see (.*)$/.exec(t);
  if (m) return { kind: 'examine-receptacle', at: m[1] as string, contents: parseList(m[2] ?? '') };
  m = /^The (.+?) is closed\.$/.exec(t);
  if (m) return { kind: 'examine-receptacle', at: m[1] as string, closed: true, contents: [] };
  m = /^The (.+?) is open\. In it, you see (.*)$/.exec(t);
  if (m)
    return {
      kind: 'examine-receptacle',
      at: m[1] as string,
      closed: false,
      contents: parseList(m[2] ?? ''),
    };
  m = /^There's nothing special about (.+?)\.$/.exec(t);
  if (m) return { kind: 'examine-object', object: m[1] as string, container: false };
  m = /^This is a (\w+) (.+?)\.( In it, you see .*)?$/.exec(t);
  if (m) {
    const state = m[1] === 'normal' ? undefined : m[1];
    return {
      kind: 'examine-object',
      object: m[2] as string,
      container: m[3] !== undefined,
      ...(state && { state }),
    };
  }
  if (t === 'You are not carrying anything.') return { kind: 'inventory' };
  m = /^You are carrying: an? (.+?)\.$/.exec(t);
  if (m) return { kind: 'inventory', holding: m[1] as string };
  m = /^You are facing the (.+?)\. Next to it, you see (.*)$/.exec(t);
  if (m) return { kind: 'look', facing: m[1] as string, nextTo: parseList(m[2] ?? '') };
  if (t === 'Nothing happens.') return { kind: 'nothing' };
  return { kind: 'unknown', text: t };
}

export function renderStart(receptacles: readonly string[], task?: string): string {
  const head = `You are in the middle of a room. Looking quickly around you, you see ${renderList(receptacles)}.`;
  return task === undefined ? head : `${head}\n\nYour task is to: ${task}`;
}

export const render = {
  arriveClosed: (at: string) => `You arrive at ${at}. The ${at} is closed.`,
  arriveOpen: (at: string, contents: readonly string[]) =>
    `You arrive at ${at}. The ${at} is open. In it, you see ${renderList(contents)}.`,
  arriveOn: (at: string, contents: readonly string[]) =>
    `You arrive at ${at}. On the ${at}, you see ${renderList(contents)}.`,
  open: (at: string, contents: readonly string[]) =>
    `You open the ${at}. The ${at} is open. In it, you see ${renderList(contents)}.`,
  close: (at: string) => `You close the ${at}.`,
  take: (object: string, from: string) => `You pick up the ${object} from the ${from}.`,
  move: (object: string, to: string) => `You move the ${object} to the ${to}.`,
  transform: (verb: Transform, object: string, using: string) =>
    `You ${verb} the ${object} using the ${using}.`,
  use: (lamp: string) => `You turn on the ${lamp}.`,
  examineReceptacle: (at: string, contents: readonly string[]) =>
    `On the ${at}, you see ${renderList(contents)}.`,
  examineClosed: (at: string) => `The ${at} is closed.`,
  examineOpen: (at: string, contents: readonly string[]) =>
    `The ${at} is open. In it, you see ${renderList(contents)}.`,
  examineObject: (object: string, state: string | undefined, container: boolean) =>
    state === undefined && !container
      ? `There's nothing special about ${object}.`
      : `This is a ${state ?? 'normal'} ${object}.${container ? ' In it, you see nothing.' : ''}`,
  inventory: (holding: string | undefined) =>
    holding === undefined ? 'You are not carrying anything.' : `You are carrying: a ${holding}.`,
  look: (facing: string, nextTo: readonly string[]) =>
    `You are facing the ${facing}. Next to it, you see ${renderList(nextTo)}.`,
};

export type Command =
  | { verb: 'go' | 'open' | 'close' | 'use' | 'examine'; target: string }
  | { verb: 'take'; object: string; target: string }
  | { verb: 'move'; object: string; target: string }
  | { verb: Transform; object: string; target: string }
  | { verb: 'inventory' | 'look' };

/** Parses a command; undefined for anything outside the command grammar. */
export function parseCommand(action: string): Command | undefined {
  const a = action.trim().replace(/\s+/g, ' ');
  let m: RegExpExecArray | null;
  if (a === 'inventory' || a === 'look') return { verb: a };
  m = /^go to (.+)$/.exec(a);
  if (m) return { verb: 'go', target: m[1] as string };
  m = /^(open|close|use|examine) (.+)$/.exec(a);
  if (m) return { verb: m[1] as 'open', target: m[2] as string };
  m = /^take (.+?) from (.+)$/.exec(a);
  if (m) return { verb: 'take', object: m[1] as string, target: m[2] as string };
  m = /^move (.+?) to (.+)$/.exec(a);
  if (m) return { verb: 'move', object: m[1] as string, target: m[2] as string };
  m = /^(heat|cool|clean) (.+?) with (.+)$/.exec(a);
  if (m) return { verb: m[1] as Transform, object: m[2] as string, target: m[3] as string };
  return undefined;
}

/** What an agent can see of a state, enough to list its admissible commands. */
export interface CommandState {
  receptacles: readonly string[];
  location?: string;
  /** Whether the location is openable, and if so whether it is open. */
  openable: boolean;
  open: boolean;
  /** The location's contents (shown only when it is not closed). */
  contents: readonly string[];
  holding?: string;
  /** Lamps standing at the location. */
  lamps: readonly string[];
  /** Can this object be picked up? */
  pickable: (object: string) => boolean;
  /** Can the held object be put at the location? (Some receptacles take no objects.) */
  canMove?: (object: string, receptacle: string) => boolean;
  /** The transform the location offers a held object (a microwave heats), if any. */
  transform?: Transform;
}

/** The admissible commands of a state, as the env lists them (sorted). */
export function admissibleCommands(s: CommandState): string[] {
  const out = new Set<string>(['inventory', 'look']);
  for (const r of s.receptacles) if (r !== s.location) out.add(`go to ${r}`);
  const at = s.location;
  if (at !== undefined) {
    out.add(`examine ${at}`);
    const visible = !s.openable || s.open;
    if (s.openable) out.add(`${s.open ? 'close' : 'open'} ${at}`);
    if (visible) {
      for (const o of s.contents) {
        out.add(`examine ${o}`);
        if (s.holding === undefined && s.pickable(o)) out.add(`take ${o} from ${at}`);
      }
    }
    if (s.holding !== undefined) {
      out.add(`examine ${s.holding}`);
      if (visible && (s.canMove?.(s.holding, at) ?? true)) out.add(`move ${s.holding} to ${at}`);
      if (s.transform) out.add(`${s.transform} ${s.holding} with ${at}`);
    }
    for (const lamp of s.lamps) {
      out.add(`examine ${lamp}`);
      out.add(`use ${lamp}`);
    }
  }
  return [...out].sort();
}

export type GoalType =
  | 'pick_and_place'
  | 'pick_clean_then_place'
  | 'pick_heat_then_place'
  | 'pick_cool_then_place'
  | 'pick_two_obj_and_place'
  | 'look_at_obj_in_light';

export interface Goal {
  type: GoalType;
  object: string;
  receptacle?: string;
  light?: string;
}

const TRANSFORM_GOAL: Record<string, GoalType> = {
  clean: 'pick_clean_then_place',
  heat: 'pick_heat_then_place',
  hot: 'pick_heat_then_place',
  cool: 'pick_cool_then_place',
};

/** Reads the goal from an instruction in the public ALFWorld task templates. */
export function parseGoal(instruction: string): Goal | undefined {
  const s = instruction.trim().toLowerCase().replace(/\.$/, '');
  let m: RegExpExecArray | null;
  m = /^(?:look at|examine) (?:the |a |some )?(\w+) (?:under|with|in) the (\w+)$/.exec(s);
  if (m) return { type: 'look_at_obj_in_light', object: m[1] as string, light: m[2] as string };
  m = /^(?:put two (\w+) (?:in|on) (\w+)|find two (\w+) and put them (?:in|on) (\w+))$/.exec(s);
  if (m)
    return {
      type: 'pick_two_obj_and_place',
      object: (m[1] ?? m[3]) as string,
      receptacle: (m[2] ?? m[4]) as string,
    };
  m = /^put a (clean|hot|cool) (\w+) (?:in|on) (\w+)$/.exec(s);
  if (m)
    return {
      type: TRANSFORM_GOAL[m[1] as string] as GoalType,
      object: m[2] as string,
      receptacle: m[3] as string,
    };
  m = /^(clean|heat|cool) (?:some|a|the) (\w+) and put it (?:in|on) (\w+)$/.exec(s);
  if (m)
    return {
      type: TRANSFORM_GOAL[m[1] as string] as GoalType,
      object: m[2] as string,
      receptacle: m[3] as string,
    };
  m =
    /^(?:put (?:some|a|an|the) (\w+) (?:in|on) (\w+)|find (?:some|a|an) (\w+) and put it (?:in|on) (\w+))$/.exec(
      s,
    );
  if (m)
    return {
      type: 'pick_and_place',
      object: (m[1] ?? m[3]) as string,
      receptacle: (m[2] ?? m[4]) as string,
    };
  return undefined;
}

/** The object state a place goal requires (`hot` for heat-then-place), if any. */
export function requiredState(goal: Goal): string | undefined {
  if (goal.type === 'pick_clean_then_place') return STATE_WORD.clean;
  if (goal.type === 'pick_heat_then_place') return STATE_WORD.heat;
  if (goal.type === 'pick_cool_then_place') return STATE_WORD.cool;
  return undefined;
}
