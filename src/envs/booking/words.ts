/**
 * The booking site's own word lists: towns, lodgings, room kinds, room features and guests.
 * Written for this env; nothing here is taken from another site or data set.
 */

/** Towns the site books stays in; a task's site offers three of them. */
export const TOWNS = [
  'Marrowby',
  'Pellin Cove',
  'Stanage',
  'Brackwater',
  'Oldhithe',
  'Fenwick Sands',
  'Corrie Head',
] as const;

/** Lodging names are a first word and a second. */
export const LODGE_FIRST = [
  'Gull',
  'Heron',
  'Linden',
  'Saltmarsh',
  'Harbour',
  'Willow',
  'Flint',
  'Kestrel',
  'Bramble',
  'Tidewater',
] as const;
/** The second word of a lodging name. */
export const LODGE_SECOND = ['House', 'Inn', 'Lodge', 'Rooms', 'Court'] as const;

/** Room kinds and how many each sleeps. */
export const ROOM_KINDS: ReadonlyArray<{ kind: string; sleeps: number }> = [
  { kind: 'single room', sleeps: 1 },
  { kind: 'double room', sleeps: 2 },
  { kind: 'twin room', sleeps: 2 },
  { kind: 'triple room', sleeps: 3 },
  { kind: 'family suite', sleeps: 4 },
];

/** Room features; the room page shows them, the results list does not. */
export const FEATURES = [
  'sea view',
  'balcony',
  'kitchenette',
  'garden access',
  'bathtub',
  'quiet side',
] as const;

/** Guests' given names. */
export const GUEST_GIVEN = [
  'Ida',
  'Bram',
  'Sunniva',
  'Teodor',
  'Maren',
  'Anselm',
  'Liesel',
  'Corin',
  'Elodie',
  'Fintan',
  'Ysolde',
  'Rainer',
] as const;

/** Guests' family names. */
export const GUEST_FAMILY = [
  'Morrow',
  'Achebe',
  'Strand',
  'Villiers',
  'Kovac',
  'Thorne',
  'Ibarra',
  'Halloran',
  'Mbeki',
  'Castellan',
] as const;

/** The month every stay is in; days run 1–31 and a stay may check out on June 1. */
export const MONTH = 'May';
/** Days in {@link MONTH}. */
export const MONTH_DAYS = 31;
/** Breakfast's price per guest per night, in dollars. */
export const BREAKFAST_PRICE = 12;
