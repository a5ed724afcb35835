import { Rng } from '../../core/rng.ts';
import { FEATURES, LODGE_FIRST, LODGE_SECOND, MONTH_DAYS, ROOM_KINDS, TOWNS } from './words.ts';

/** A bookable room: where, what, its features, nightly rate in dollars, and the nights taken. */
export interface Room {
  id: string;
  lodge: string;
  town: string;
  kind: string;
  sleeps: number;
  features: string[];
  rate: number;
  /** Days of the month already booked. */
  booked: number[];
}

/** The site's hidden inventory: its towns and every room in them. */
export interface Inventory {
  towns: string[];
  rooms: Room[];
}

/** A stay searched for: where, from which day of the month, how many nights, how many guests. */
export interface Stay {
  town: string;
  arrival: number;
  nights: number;
  guests: number;
}

/** Nightly rate ranges by room kind, in dollars. */
const RATES: Record<string, [number, number]> = {
  'single room': [55, 90],
  'double room': [75, 140],
  'twin room': [75, 130],
  'triple room': [105, 170],
  'family suite': [145, 230],
};

/**
 * The inventory of seed `seed`: three towns, 3–4 lodgings in each, 2–3 rooms of different kinds
 * per lodging, each with one or two features and about a fifth of the month already booked.
 */
export function generateInventory(seed: number): Inventory {
  const rng = new Rng(seed).fork('booking-inventory');
  const towns = rng.sample(TOWNS, 3);
  const lodgeNames = rng.shuffle(LODGE_FIRST.flatMap((a) => LODGE_SECOND.map((b) => `${a} ${b}`)));
  const ids = rng.shuffle(Array.from({ length: 90 }, (_, i) => `R-${i + 10}`));
  const rooms: Room[] = [];
  for (const town of towns) {
    for (let l = rng.between(3, 4); l > 0; l--) {
      const lodge = lodgeNames.pop() as string;
      for (const { kind, sleeps } of rng.sample(ROOM_KINDS, rng.between(2, 3))) {
        const [low, high] = RATES[kind] as [number, number];
        rooms.push({
          id: ids.pop() as string,
          lodge,
          town,
          kind,
          sleeps,
          features: rng.sample(FEATURES, rng.between(1, 2)),
          rate: rng.between(low, high),
          booked: Array.from({ length: MONTH_DAYS }, (_, d) => d + 1).filter(() => rng.chance(0.2)),
        });
      }
    }
  }
  return { towns, rooms };
}

/** The rooms free for every night of a stay that sleep its guests, in the site's listing order. */
export function availableRooms(inventory: Inventory, stay: Stay): Room[] {
  const nights = Array.from({ length: stay.nights }, (_, i) => stay.arrival + i);
  return inventory.rooms.filter(
    (r) =>
      r.town === stay.town &&
      r.sleeps >= stay.guests &&
      nights.every((night) => !r.booked.includes(night)),
  );
}

/** A room's price for a stay, without breakfast. */
export function roomTotal(room: Room, stay: Stay): number {
  return room.rate * stay.nights;
}
