/**
 * The keys-and-doors game's own word lists: rooms, doors, lock metals, containers and things.
 * Written for this env; nothing here is taken from another game or data set.
 */

/** Room names; a house draws 5–7 of them. */
export const ROOM_NAMES = [
  'hall',
  'pantry',
  'cellar',
  'library',
  'gallery',
  'scullery',
  'armory',
  'chapel',
  'attic',
  'greenhouse',
  'study',
  'larder',
  'workshop',
  'nursery',
  'observatory',
] as const;

/** Door names: what a locked door looks like. */
export const DOOR_NAMES = [
  'oak door',
  'birch door',
  'red door',
  'green door',
  'iron gate',
  'painted door',
  'arched door',
  'low door',
] as const;

/** Lock metals. A key opens the lock of its own metal; any other key snaps in it. */
export const METALS = ['brass', 'iron', 'silver', 'copper', 'bronze', 'pewter'] as const;

/** Containers, each named so no two in a house share a word that could be confused. */
export const CONTAINERS = [
  'wooden chest',
  'wicker basket',
  'tin box',
  'old trunk',
  'cedar cupboard',
  'clay jar',
  'leather satchel',
  'iron safe',
] as const;

/** Things that goals are about and that lie around as distractors. */
export const THINGS = [
  'lantern',
  'compass',
  'ruby',
  'scroll',
  'bell',
  'feather',
  'goblet',
  'locket',
  'candle',
  'map',
  'spyglass',
  'quill',
] as const;

/** The four directions, and each one's opposite. */
export const OPPOSITE = { north: 'south', south: 'north', east: 'west', west: 'east' } as const;

/** A direction to go in. */
export type Direction = keyof typeof OPPOSITE;
