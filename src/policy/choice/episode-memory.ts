import type { Observation } from '../../core/types.ts';

/**
 * What an agent in a text household (ALFWorld's commands and replies) has learnt so far in an
 * episode, read back from its own actions and the replies to them: where it is, where it has
 * been, what it opened, which objects it saw where, what it holds, what it has treated and
 * placed. The policy reads it as features, so a 50-step task needs no recurrent state.
 */
export interface EpisodeMemory {
  /** The receptacle the agent last arrived at. */
  location: string | undefined;
  /** Receptacle → times arrived. */
  visits: Map<string, number>;
  opened: Set<string>;
  /** Object (`plate 1`) → the receptacle it was last seen in or on. */
  seenAt: Map<string, string>;
  held: string | undefined;
  /** `heat:egg 1`, `clean:plate 1`, `cool:…`: treatments that succeeded. */
  treated: Set<string>;
  /** Objects moved somewhere, with where. */
  placed: Map<string, string>;
}

/** An object or receptacle's kind: `plate 1` → `plate`. */
export const kindOf = (name: string) => name.replace(/\s+\d+$/, '');

/**
 * The memory after `history` (actions, oldest first) whose replies are `observations` (same
 * length). Replies that say an action failed change nothing.
 */
export function episodeMemory(
  history: readonly string[],
  observations: readonly Observation[],
): EpisodeMemory {
  const memory: EpisodeMemory = {
    location: undefined,
    visits: new Map(),
    opened: new Set(),
    seenAt: new Map(),
    held: undefined,
    treated: new Set(),
    placed: new Map(),
  };
  for (let i = 0; i < history.length; i++) {
    const command = parseCommand((history[i] as string).trim().toLowerCase());
    const reply = observations[i]?.text ?? '';
    if (!command) continue;
    const { verb, object, target } = command;
    if (verb === 'go to' && reply.startsWith('You arrive at')) {
      memory.location = target;
      memory.visits.set(target, (memory.visits.get(target) ?? 0) + 1);
      see(memory, target, reply);
    } else if (verb === 'open' && reply.startsWith('You open')) {
      memory.opened.add(target);
      see(memory, target, reply);
    } else if (verb === 'take' && reply.startsWith('You pick up')) {
      memory.held = object;
      memory.seenAt.delete(object);
    } else if (verb === 'move' && /^You (?:move|put)/.test(reply)) {
      memory.held = undefined;
      memory.seenAt.set(object, target);
      memory.placed.set(object, target);
    } else if (
      (verb === 'heat' || verb === 'cool' || verb === 'clean') &&
      reply.startsWith(`You ${verb}`)
    ) {
      memory.treated.add(`${verb}:${object}`);
    }
  }
  return memory;
}

/** Records the objects a reply lists in or on `place` (`… you see a egg 2, and a plate 1.`). */
function see(memory: EpisodeMemory, place: string, reply: string): void {
  const listed = /you see (.*?)\.?$/i.exec(reply)?.[1];
  if (!listed) return;
  for (const [, object] of listed.matchAll(/\ban? ([a-z]+ \d+)/g))
    memory.seenAt.set(object as string, place);
}

/** A household command: its verb, the object it handles and the place or tool it targets. */
export interface Command {
  verb: string;
  object: string;
  target: string;
}

const COMMANDS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => Command]> = [
  [/^go to (.+)$/, (m) => ({ verb: 'go to', object: '', target: m[1] as string })],
  [
    /^(open|close|use|examine) (.+)$/,
    (m) => ({ verb: m[1] as string, object: '', target: m[2] as string }),
  ],
  [
    /^take (.+) from (.+)$/,
    (m) => ({ verb: 'take', object: m[1] as string, target: m[2] as string }),
  ],
  [
    /^move (.+) to (.+)$/,
    (m) => ({ verb: 'move', object: m[1] as string, target: m[2] as string }),
  ],
  [
    /^put (.+?) (?:in\/on|in|on|into) (.+)$/,
    (m) => ({ verb: 'move', object: m[1] as string, target: m[2] as string }),
  ],
  [
    /^(heat|cool|clean|slice) (.+) with (.+)$/,
    (m) => ({ verb: m[1] as string, object: m[2] as string, target: m[3] as string }),
  ],
];

/** The command a lower-cased action names, or undefined for other text (`inventory`, `look`). */
export function parseCommand(action: string): Command | undefined {
  for (const [pattern, read] of COMMANDS) {
    const match = pattern.exec(action);
    if (match) return read(match);
  }
  return undefined;
}
