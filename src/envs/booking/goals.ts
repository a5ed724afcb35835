import type { Rng } from '../../core/rng.ts';
import { availableRooms, type Inventory, type Room, roomTotal, type Stay } from './inventory.ts';
import type { Booking } from './site.ts';
import { MONTH } from './words.ts';

/**
 * A booking request: the stay, which room (the cheapest free one with a feature, of a kind, or
 * both), and the guest's details.
 */
export interface BookingGoal {
  stay: Stay;
  feature?: string;
  kind?: string;
  name: string;
  phone: string;
  breakfast: boolean;
}

/**
 * The room the request means, read from the hidden inventory: the cheapest free room for the
 * stay that has the feature and is of the kind asked for. Undefined when none is free.
 */
export function bestRoom(goal: BookingGoal, inventory: Inventory): Room | undefined {
  return matching(goal, availableRooms(inventory, goal.stay)).sort(
    (a, b) => roomTotal(a, goal.stay) - roomTotal(b, goal.stay),
  )[0];
}

/** The rooms among `rooms` that have the goal's feature and kind. */
export function matching(
  goal: Pick<BookingGoal, 'feature' | 'kind'>,
  rooms: readonly Room[],
): Room[] {
  return rooms.filter(
    (r) =>
      (!goal.feature || r.features.includes(goal.feature)) && (!goal.kind || r.kind === goal.kind),
  );
}

/**
 * 1 when the confirmed booking is the one asked for: the best room for the very stay, booked
 * for the guest's name (case and spacing aside) and phone, with breakfast as asked; else 0.
 */
export function bookingReward(goal: BookingGoal, inventory: Inventory, booking: Booking): number {
  const norm = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');
  const same =
    booking.room === bestRoom(goal, inventory)?.id &&
    JSON.stringify(booking.stay) === JSON.stringify(goal.stay) &&
    norm(booking.name) === norm(goal.name) &&
    booking.phone.trim() === goal.phone &&
    booking.breakfast === goal.breakfast;
  return same ? 1 : 0;
}

/** How a feature reads after "the cheapest room". */
const FEATURE_PHRASES: Record<string, string> = {
  'sea view': 'with a sea view',
  balcony: 'with a balcony',
  kitchenette: 'with a kitchenette',
  'garden access': 'with garden access',
  bathtub: 'with a bathtub',
  'quiet side': 'on the quiet side',
};

/** The request in words. */
export function writeInstruction(goal: BookingGoal, rng: Rng): string {
  const { town, arrival, nights, guests } = goal.stay;
  const who = `${guests} guest${guests === 1 ? '' : 's'}`;
  const stay = `${nights} night${nights === 1 ? '' : 's'}`;
  const room = [goal.kind ?? 'room', goal.feature ? FEATURE_PHRASES[goal.feature] : '']
    .filter(Boolean)
    .join(' ');
  const opening = rng.pick([
    `Book a stay in ${town} for ${who}, arriving ${MONTH} ${arrival} for ${stay}: the cheapest ${room}.`,
    `I need the cheapest ${room} in ${town} for ${who}, from ${MONTH} ${arrival}, ${stay}.`,
  ]);
  const breakfast = goal.breakfast ? 'Add breakfast.' : 'No breakfast.';
  return `${opening} ${breakfast} The booking is for ${goal.name}, phone ${goal.phone}.`;
}
