import { type Command, formatCommand, parseCommand } from './commands.ts';
import { across, type Container, type Layout, type Link, type Place } from './layout.ts';
import type { Direction } from './words.ts';

/** What a goal asks: a thing left in a room, or put in a container. */
export type KeysGoal =
  | { kind: 'bring'; thing: string; room: string }
  | { kind: 'put'; thing: string; container: string };

/** Where an item is during play: where the layout put it, carried, or broken in a lock. */
export type ItemPlace = Place | { held: true } | { broken: true };

/**
 * What a command did: refused (not admissible; nothing changed), or carried out with its
 * feedback. `jammed` marks the irreversible mistake: a wrong key snapped in a lock.
 */
export type GameReply =
  | { ok: false; reason: string }
  | { ok: true; feedback: string; jammed?: boolean };

/**
 * The keys-and-doors game state and its rules, replayable: the env drives one, the scripted
 * expert replays an episode's commands on its own copy.
 *
 * Commands: `go <direction>`, `open <container>`, `close <container>`, `take <item>`,
 * `drop <item>`, `put <item> in <container>`, `unlock <door> with <key>`, `look`, `inventory`.
 * A closed container hides what is in it; a locked door bars its way until unlocked with the key
 * of its lock's metal. Trying any other key snaps it in the lock and jams the door for good.
 * Only admissible commands are carried out; walking into a locked door is one (it says so).
 */
export class KeysAndDoorsGame {
  /** The room the player is in. */
  location: string;
  private readonly places = new Map<string, ItemPlace>();
  private readonly open = new Set<string>();
  private readonly unlocked = new Set<string>();
  private readonly visited = new Set<string>();

  constructor(readonly layout: Layout) {
    this.location = layout.start;
    this.visited.add(layout.start);
    for (const item of layout.items) this.places.set(item.name, item.place);
    for (const c of layout.containers) if (c.open) this.open.add(c.name);
  }

  /** Carries out one command. */
  execute(text: string): GameReply {
    const command = parseCommand(text);
    const admissible = this.admissibleCommands();
    if (!command || !admissible.includes(formatCommand(command))) {
      return { ok: false, reason: refusal(text, admissible) };
    }
    return this.apply(command);
  }

  /** Every command that is admissible now, sorted. */
  admissibleCommands(): string[] {
    const commands = ['look', 'inventory'];
    const held = this.held();
    for (const { link, dir } of this.exits()) {
      commands.push(`go ${dir}`);
      if (link.door && !this.unlocked.has(link.door.name)) {
        for (const key of held.filter((i) => this.metalOf(i))) {
          commands.push(`unlock ${link.door.name} with ${key}`);
        }
      }
    }
    const here = this.containersHere();
    for (const c of here) commands.push(`${this.open.has(c.name) ? 'close' : 'open'} ${c.name}`);
    for (const item of this.visible()) commands.push(`take ${item}`);
    for (const item of held) {
      commands.push(`drop ${item}`);
      for (const c of here.filter((c) => this.open.has(c.name))) {
        commands.push(`put ${item} in ${c.name}`);
      }
    }
    return commands.sort();
  }

  /** What the player sees: the room, its exits, what lies in sight, and what they carry. */
  describe(): string {
    const exits = this.exits().map(({ link, dir, room }) => {
      const beyond = this.visited.has(room) ? `the ${room}` : 'somewhere unexplored';
      if (!link.door) return `${dir} to ${beyond}`;
      const state = this.unlocked.has(link.door.name) ? 'unlocked' : 'locked';
      return `${dir} through the ${link.door.name} (${link.door.lock} lock, ${state}) to ${beyond}`;
    });
    const sights = [
      ...this.containersHere().map((c) =>
        this.open.has(c.name)
          ? `${article(c.name)} (open, holding ${listing(this.contents(c.name))})`
          : `${article(c.name)} (closed)`,
      ),
      ...this.itemsAt({ room: this.location }).map(article),
    ];
    return [
      `You are in the ${this.location}.`,
      `Exits: ${exits.join('; ')}.`,
      `You see ${sights.length > 0 ? sights.join(', ') : 'nothing of note'}.`,
      `You carry ${listing(this.held())}.`,
    ].join('\n');
  }

  /** Whether `goal` holds now: the thing lies (not carried) in the room, or is in the container. */
  reached(goal: KeysGoal): boolean {
    const place = this.whereIs(goal.thing);
    if (goal.kind === 'put') return 'container' in place && place.container === goal.container;
    return !('held' in place) && this.roomOf(place) === goal.room;
  }

  /** Where an item is now. */
  whereIs(item: string): ItemPlace {
    return this.places.get(item) ?? { broken: true };
  }

  /** The room a place is in (a carried item's is the player's); undefined for a broken key. */
  roomOf(place: ItemPlace): string | undefined {
    if ('held' in place) return this.location;
    if ('room' in place) return place.room;
    if ('container' in place) return this.containerNamed(place.container)?.room;
    return undefined;
  }

  /** The items in a container, whether or not it is open. */
  contents(container: string): string[] {
    return this.itemsAt({ container });
  }

  /** Whether a container is open now. */
  isOpen(container: string): boolean {
    return this.open.has(container);
  }

  /** Whether a door has been unlocked. */
  isUnlocked(door: string): boolean {
    return this.unlocked.has(door);
  }

  /** The names of the items carried. */
  held(): string[] {
    return this.itemsAt({ held: true });
  }

  /** The metal of a key; undefined for things. */
  metalOf(item: string): string | undefined {
    return this.layout.items.find((i) => i.name === item)?.metal;
  }

  /** The ways out of the current room. */
  exits(): Array<{ link: Link; dir: Direction; room: string }> {
    return this.layout.links.flatMap((link) => {
      const other = across(link, this.location);
      return other ? [{ link, ...other }] : [];
    });
  }

  private apply(command: Command): GameReply {
    switch (command.verb) {
      case 'look':
        return { ok: true, feedback: '' };
      case 'inventory':
        return { ok: true, feedback: `You carry ${listing(this.held())}.` };
      case 'go':
        return this.go(command.dir);
      case 'open':
        this.open.add(command.container);
        return {
          ok: true,
          feedback: `You open the ${command.container}. In it you see ${listing(this.contents(command.container))}.`,
        };
      case 'close':
        this.open.delete(command.container);
        return { ok: true, feedback: `You close the ${command.container}.` };
      case 'take':
        this.places.set(command.item, { held: true });
        return { ok: true, feedback: `You take the ${command.item}.` };
      case 'drop':
        this.places.set(command.item, { room: this.location });
        return { ok: true, feedback: `You drop the ${command.item}.` };
      case 'put':
        this.places.set(command.item, { container: command.container });
        return { ok: true, feedback: `You put the ${command.item} in the ${command.container}.` };
      case 'unlock':
        return this.unlock(command.door, command.key);
    }
  }

  private go(dir: Direction): GameReply {
    const exit = this.exits().find((e) => e.dir === dir) as { link: Link; room: string };
    const door = exit.link.door;
    if (door && !this.unlocked.has(door.name)) {
      return { ok: true, feedback: `The ${door.name} is locked. Its lock is ${door.lock}.` };
    }
    this.location = exit.room;
    this.visited.add(exit.room);
    return { ok: true, feedback: `You go ${dir}.` };
  }

  private unlock(doorName: string, key: string): GameReply {
    const lock = this.exits().find((e) => e.link.door?.name === doorName)?.link.door?.lock;
    if (this.metalOf(key) !== lock) {
      this.places.set(key, { broken: true });
      return {
        ok: true,
        jammed: true,
        feedback: `The ${key} snaps off in the ${lock} lock of the ${doorName}. The door is jammed for good; the task can no longer be done.`,
      };
    }
    this.unlocked.add(doorName);
    return { ok: true, feedback: `You unlock the ${doorName} with the ${key}.` };
  }

  private containersHere(): Container[] {
    return this.layout.containers.filter((c) => c.room === this.location);
  }

  private containerNamed(name: string): Container | undefined {
    return this.layout.containers.find((c) => c.name === name);
  }

  /** Items in sight: on this room's floor, or in an open container here. */
  private visible(): string[] {
    return [
      ...this.itemsAt({ room: this.location }),
      ...this.containersHere()
        .filter((c) => this.open.has(c.name))
        .flatMap((c) => this.itemsAt({ container: c.name })),
    ];
  }

  /** The items at a place, in the layout's order. */
  private itemsAt(place: { room: string } | { container: string } | { held: true }): string[] {
    const key = JSON.stringify(place);
    return [...this.places].filter(([, p]) => JSON.stringify(p) === key).map(([name]) => name);
  }
}

/** `a brass key and a map`, or `nothing`. */
function listing(items: readonly string[]): string {
  const names = items.map(article);
  if (names.length <= 1) return names[0] ?? 'nothing';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** `a map`, `an iron key`. */
function article(name: string): string {
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
}

/** Why a command is refused, naming the commands of its verb that would do. */
function refusal(text: string, admissible: readonly string[]): string {
  if (text.trim().length === 0) return 'the command is empty; give one of the admissible commands.';
  const verb = text.trim().toLowerCase().split(' ')[0] as string;
  const same = admissible.filter((c) => c.startsWith(`${verb} `));
  if (same.length === 0)
    return `"${text}" is not a command here; commands now: ${admissible.join(', ')}.`;
  return `"${text}" cannot be done here; you could: ${same.join(', ')}.`;
}
