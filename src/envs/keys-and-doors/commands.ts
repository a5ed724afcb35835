import type { Direction } from './words.ts';

/** A game command, parsed. */
export type Command =
  | { verb: 'look' | 'inventory' }
  | { verb: 'go'; dir: Direction }
  | { verb: 'open' | 'close'; container: string }
  | { verb: 'take' | 'drop'; item: string }
  | { verb: 'put'; item: string; container: string }
  | { verb: 'unlock'; door: string; key: string };

/** The command a text says, or undefined when it follows none of the command forms. */
export function parseCommand(text: string): Command | undefined {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (t === 'look' || t === 'inventory') return { verb: t };
  const go = /^go (north|south|east|west)$/.exec(t);
  if (go) return { verb: 'go', dir: go[1] as Direction };
  const put = /^put (.+) in (.+)$/.exec(t);
  if (put) return { verb: 'put', item: put[1] as string, container: put[2] as string };
  const unlock = /^unlock (.+) with (.+)$/.exec(t);
  if (unlock) return { verb: 'unlock', door: unlock[1] as string, key: unlock[2] as string };
  const simple = /^(open|close|take|drop) (.+)$/.exec(t);
  if (!simple) return undefined;
  const [, verb, object] = simple as unknown as [
    string,
    'open' | 'close' | 'take' | 'drop',
    string,
  ];
  return verb === 'open' || verb === 'close' ? { verb, container: object } : { verb, item: object };
}

/** A command as text, in the one spelling the game lists it. */
export function formatCommand(command: Command): string {
  switch (command.verb) {
    case 'look':
    case 'inventory':
      return command.verb;
    case 'go':
      return `go ${command.dir}`;
    case 'open':
    case 'close':
      return `${command.verb} ${command.container}`;
    case 'take':
    case 'drop':
      return `${command.verb} ${command.item}`;
    case 'put':
      return `put ${command.item} in ${command.container}`;
    case 'unlock':
      return `unlock ${command.door} with ${command.key}`;
  }
}
