import { Rng } from '../../core/rng.ts';
import {
  CONTAINERS,
  type Direction,
  DOOR_NAMES,
  METALS,
  OPPOSITE,
  ROOM_NAMES,
  THINGS,
} from './words.ts';

/** A way between two rooms: `dir` leads from `rooms[0]` to `rooms[1]`; a door may lock it. */
export interface Link {
  rooms: [string, string];
  dir: Direction;
  door?: { name: string; lock: string };
}

/** Where an item lies: on a room's floor or in a container. */
export type Place = { room: string } | { container: string };

/** An item: a key (with its metal) or a thing. */
export interface Item {
  name: string;
  /** The metal of a key; absent for things. */
  metal?: string;
  place: Place;
}

/** A container; closed ones hide what is in them. */
export interface Container {
  name: string;
  room: string;
  open: boolean;
}

/**
 * A generated house: rooms joined in a tree (one way between any two rooms), some ways shut by
 * locked doors, containers, keys and things. Every locked door's key lies where it can be
 * reached without passing that door, so every house can be opened up entirely.
 */
export interface Layout {
  start: string;
  rooms: string[];
  links: Link[];
  containers: Container[];
  items: Item[];
  /** Rooms in the order locks open them up: region 0 is reachable at the start. */
  region: Record<string, number>;
}

/** The house of `seed`: 5–7 rooms, 1–3 locked doors, 2–4 containers, 1–2 keys that fit nothing. */
export function generateLayout(seed: number): Layout {
  const rng = new Rng(seed).fork('keys-and-doors-layout');
  const rooms = rng.sample(ROOM_NAMES, rng.between(5, 7));
  const cells = new Map<string, string>([['0,0', rooms[0] as string]]);
  const at = new Map<string, [number, number]>([[rooms[0] as string, [0, 0]]]);
  const step: Record<Direction, [number, number]> = {
    north: [0, 1],
    south: [0, -1],
    east: [1, 0],
    west: [-1, 0],
  };
  const links: Link[] = [];
  for (const room of rooms.slice(1)) {
    for (;;) {
      const from = rng.pick([...at.keys()]);
      const [x, y] = at.get(from) as [number, number];
      const dir = rng.pick(Object.keys(step) as Direction[]);
      const cell: [number, number] = [x + step[dir][0], y + step[dir][1]];
      if (cells.has(cell.join(','))) continue;
      cells.set(cell.join(','), room);
      at.set(room, cell);
      links.push({ rooms: [from, room], dir });
      break;
    }
  }

  const locked = rng.sample(
    links,
    Math.min(links.length, rng.weighted([1, 2, 3], [0.25, 0.5, 0.25])),
  );
  const metals = rng.shuffle(METALS);
  const doorNames = rng.sample(DOOR_NAMES, locked.length);
  locked.forEach((link, i) => {
    link.door = { name: doorNames[i] as string, lock: metals[i] as string };
  });
  const containers = rng.sample(CONTAINERS, rng.between(2, 4)).map((name) => ({
    name,
    room: rng.pick(rooms),
    open: rng.chance(0.25),
  }));
  const items: Item[] = [];
  const place = (room: string): Place => {
    const here = containers.filter((c) => c.room === room);
    return here.length > 0 && rng.chance(0.6) ? { container: rng.pick(here).name } : { room };
  };

  // Open the house up lock by lock, leaving each key inside what is open before its door.
  const shut = new Set(locked);
  const region: Record<string, number> = {};
  const flood = (from: string, index: number) => {
    const queue = [from];
    while (queue.length > 0) {
      const room = queue.pop() as string;
      if (region[room] !== undefined) continue;
      region[room] = index;
      for (const link of links) {
        const next = across(link, room);
        if (next && !shut.has(link)) queue.push(next.room);
      }
    }
  };
  flood(rooms[0] as string, 0);
  for (let index = 1; shut.size > 0; index++) {
    const link = rng.pick([...shut].filter((l) => l.rooms.some((r) => region[r] !== undefined)));
    const lock = link.door?.lock as string;
    items.push({ name: `${lock} key`, metal: lock, place: place(rng.pick(Object.keys(region))) });
    shut.delete(link);
    flood(link.rooms.find((r) => region[r] === undefined) as string, index);
  }
  for (const metal of metals.slice(locked.length, locked.length + rng.between(1, 2))) {
    items.push({ name: `${metal} key`, metal, place: place(rng.pick(rooms)) });
  }
  for (const thing of rng.sample(THINGS, rng.between(3, 5))) {
    items.push({ name: thing, place: place(rng.pick(rooms)) });
  }
  return { start: rooms[0] as string, rooms, links, containers, items, region };
}

/** The room at the other end of `link` from `room`, and the direction to it; undefined if none. */
export function across(link: Link, room: string): { room: string; dir: Direction } | undefined {
  if (link.rooms[0] === room) return { room: link.rooms[1], dir: link.dir };
  if (link.rooms[1] === room) return { room: link.rooms[0], dir: OPPOSITE[link.dir] };
  return undefined;
}
