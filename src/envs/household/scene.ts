/**
 * The seeded scene generator: one room of a given kind, furnished with numbered receptacles
 * (`cabinet 3`, `countertop 1`) and numbered objects (`apple 2`) in plausible places. The same
 * room kind and seed always give the same scene, so a task only has to store those two.
 */

import { Rng } from '../../core/rng.ts';
import { canContain, objectType, ROOMS, type RoomType, receptacleType } from './vocabulary.ts';

/** Identifies a generated scene. */
export interface SceneId {
  room: RoomType;
  seed: number;
}

export interface SceneReceptacle {
  /** Type and number, e.g. `cabinet 3`. */
  name: string;
  type: string;
  /** Closed at the start when openable, as in ALFWorld. */
  openable: boolean;
}

export interface SceneObject {
  /** Type and number, e.g. `apple 2`. */
  name: string;
  type: string;
  /** The receptacle it starts in, or, for a floor object, the one it stands next to. */
  receptacle: string;
  onFloor: boolean;
}

export interface Scene extends SceneId {
  /** In generation order; the text lists them in ALFWorld's order (see `feedback.ts`). */
  receptacles: readonly SceneReceptacle[];
  objects: readonly SceneObject[];
}

/** Share of `sometimes`-openable receptacles (cabinets, drawers) that have doors. */
const DOOR_CHANCE = 0.9;
/** How many instances an object type present in a room has: 1, 2 or 3. */
const INSTANCE_WEIGHTS = [5, 3, 2];

export function generateScene(id: SceneId): Scene {
  const spec = ROOMS[id.room];
  if (!spec) throw new RangeError(`unknown household room "${id.room}"`);
  const rng = new Rng(id.seed).fork('household-scene', id.room);

  const furnitureRng = rng.fork('furniture');
  const receptacles: SceneReceptacle[] = [];
  for (const item of spec.furniture) {
    if (!furnitureRng.chance(item.chance)) continue;
    const openable = receptacleType(item.type).openable;
    const count = furnitureRng.between(item.min, item.max);
    for (let n = 1; n <= count; n++) {
      receptacles.push({
        name: `${item.type} ${n}`,
        type: item.type,
        openable:
          openable === 'always' || (openable === 'sometimes' && furnitureRng.chance(DOOR_CHANCE)),
      });
    }
  }

  const objectRng = rng.fork('objects');
  const objects: SceneObject[] = [];
  const add = (type: string, instances: number) => {
    for (let n = 1; n <= instances; n++) {
      const place = placeFor(type, receptacles, objectRng);
      if (!place) return;
      objects.push({ name: `${type} ${n}`, type, ...place });
    }
  };
  for (const type of spec.objects) {
    if (objectRng.chance(spec.objectChance))
      add(type, objectRng.weighted([1, 2, 3], INSTANCE_WEIGHTS));
  }
  for (const [type, chance] of Object.entries(spec.fixtures)) {
    if (objectRng.chance(chance)) add(type, 1);
  }
  return { room: id.room, seed: id.seed, receptacles, objects };
}

/**
 * Where an object of `type` starts: a receptacle that can hold it, drawn by the receptacle type's
 * placement weight (apples lie on counters more often than in cabinets); floor objects stand next
 * to a fitting piece of furniture. Undefined when the room has nowhere to put it.
 */
function placeFor(
  type: string,
  receptacles: readonly SceneReceptacle[],
  rng: Rng,
): { receptacle: string; onFloor: boolean } | undefined {
  const nextTo = objectType(type).standsNextTo;
  if (nextTo) {
    const spots = receptacles.filter((r) => nextTo.includes(r.type));
    return spots.length > 0 ? { receptacle: rng.pick(spots).name, onFloor: true } : undefined;
  }
  const spots = receptacles.filter(
    (r) => canContain(r.type, type) && receptacleType(r.type).placementWeight > 0,
  );
  if (spots.length === 0) return undefined;
  const weights = spots.map((r) => receptacleType(r.type).placementWeight);
  return { receptacle: rng.weighted(spots, weights).name, onFloor: false };
}
