/**
 * The hand-written vocabulary `household` scenes are generated from: object types and their
 * affordances, receptacle types and what they can hold, and the four kinds of room.
 *
 * Written for this project after ALFWorld's PDDL domain (which affordances exist: cleanable,
 * heatable, coolable, sliceable, toggleable, receptacle objects) and the look of its rooms (how many
 * cabinets a kitchen has, where soap bars lie), not copied from its data. Names follow ALFWorld's
 * text mode: one lower-case word per type (`spraybottle`, `butterknife`), instances numbered from 1.
 */

/**
 * What can be done with an object, after the PDDL predicates of the same meaning:
 * `pickup` (pickupable), `clean` (cleanable in a sink basin), `heat` (heatable in a microwave),
 * `cool` (coolable in a fridge), `slice` (sliceable), `blade` (slices things: knives),
 * `light` (a lamp: toggleable, the light source of look-at-in-light tasks),
 * `container` (a receptacle object such as a bowl, which `examine` describes as one).
 */
export type Affordance =
  | 'pickup'
  | 'clean'
  | 'heat'
  | 'cool'
  | 'slice'
  | 'blade'
  | 'light'
  | 'container';

/** Families of objects that receptacles accept as a whole (`dish`: a fridge holds any dish). */
export type ObjectKind =
  | 'food'
  | 'dish'
  | 'cookware'
  | 'utensil'
  | 'kitchenware'
  | 'bottle'
  | 'toiletry'
  | 'linen'
  | 'personal'
  | 'reading'
  | 'decor'
  | 'toy'
  | 'fixture';

export interface ObjectType {
  name: string;
  kind: ObjectKind;
  affordances: ReadonlySet<Affordance>;
  /**
   * For objects that stand on the floor (floor lamps): the receptacles they may stand next to.
   * `look` lists them ("Next to it, you see a floorlamp 1"); they are never in a receptacle.
   */
  standsNextTo?: readonly string[];
}

export interface ReceptacleType {
  name: string;
  /** `sometimes`: most are, a few are open shelving (ALFWorld has such cabinets and drawers). */
  openable: 'always' | 'never' | 'sometimes';
  /** Object kinds and object type names it can hold (PDDL's `canContain`). */
  holds: readonly string[];
  /** How likely an object starts on one instance of it, relative to the room's other options. */
  placementWeight: number;
}

const obj = (
  name: string,
  kind: ObjectKind,
  affordances: string,
  standsNextTo?: readonly string[],
): ObjectType => ({
  name,
  kind,
  affordances: new Set(affordances.split(' ').filter(Boolean) as Affordance[]),
  ...(standsNextTo && { standsNextTo }),
});

const OBJECT_LIST: readonly ObjectType[] = [
  obj('apple', 'food', 'pickup clean heat cool slice'),
  obj('bread', 'food', 'pickup heat cool slice'),
  obj('egg', 'food', 'pickup clean heat cool'),
  obj('lettuce', 'food', 'pickup clean cool slice'),
  obj('potato', 'food', 'pickup clean heat cool slice'),
  obj('tomato', 'food', 'pickup clean heat cool slice'),
  obj('bowl', 'dish', 'pickup clean cool container'),
  obj('cup', 'dish', 'pickup clean heat cool container'),
  obj('mug', 'dish', 'pickup clean heat cool container'),
  obj('plate', 'dish', 'pickup clean heat cool container'),
  obj('pan', 'cookware', 'pickup clean cool container'),
  obj('pot', 'cookware', 'pickup clean cool container'),
  obj('kettle', 'cookware', 'pickup clean'),
  obj('butterknife', 'utensil', 'pickup clean blade'),
  obj('knife', 'utensil', 'pickup clean blade'),
  obj('fork', 'utensil', 'pickup clean'),
  obj('spoon', 'utensil', 'pickup clean'),
  obj('spatula', 'utensil', 'pickup clean'),
  obj('ladle', 'utensil', 'pickup clean'),
  obj('dishsponge', 'kitchenware', 'pickup clean'),
  obj('saltshaker', 'kitchenware', 'pickup'),
  obj('peppershaker', 'kitchenware', 'pickup'),
  obj('papertowelroll', 'kitchenware', 'pickup'),
  obj('winebottle', 'bottle', 'pickup cool'),
  obj('glassbottle', 'bottle', 'pickup'),
  obj('soapbottle', 'bottle', 'pickup'),
  obj('spraybottle', 'bottle', 'pickup'),
  obj('soapbar', 'toiletry', 'pickup clean'),
  obj('toiletpaper', 'toiletry', 'pickup'),
  obj('tissuebox', 'toiletry', 'pickup'),
  obj('cloth', 'linen', 'pickup clean'),
  obj('handtowel', 'linen', 'pickup'),
  obj('towel', 'linen', 'pickup'),
  obj('pillow', 'linen', 'pickup'),
  obj('alarmclock', 'personal', 'pickup'),
  obj('cd', 'personal', 'pickup'),
  obj('cellphone', 'personal', 'pickup'),
  obj('creditcard', 'personal', 'pickup'),
  obj('keychain', 'personal', 'pickup'),
  obj('pen', 'personal', 'pickup'),
  obj('pencil', 'personal', 'pickup'),
  obj('remotecontrol', 'personal', 'pickup'),
  obj('watch', 'personal', 'pickup'),
  obj('book', 'reading', 'pickup'),
  obj('laptop', 'reading', 'pickup'),
  obj('newspaper', 'reading', 'pickup'),
  obj('box', 'decor', 'pickup container'),
  obj('candle', 'decor', 'pickup'),
  obj('statue', 'decor', 'pickup'),
  obj('vase', 'decor', 'pickup'),
  obj('baseballbat', 'toy', 'pickup'),
  obj('basketball', 'toy', 'pickup'),
  obj('tennisracket', 'toy', 'pickup'),
  obj('teddybear', 'toy', 'pickup'),
  obj('desklamp', 'fixture', 'light'),
  obj('floorlamp', 'fixture', 'light', ['armchair', 'bed', 'desk', 'dresser', 'sidetable', 'sofa']),
  obj('houseplant', 'fixture', ''),
  obj('television', 'fixture', ''),
];

const OBJECT_TYPES: ReadonlyMap<string, ObjectType> = new Map(OBJECT_LIST.map((t) => [t.name, t]));

const rec = (
  name: string,
  openable: ReceptacleType['openable'],
  placementWeight: number,
  holds: string,
): ReceptacleType => ({ name, openable, placementWeight, holds: holds.split(' ').filter(Boolean) });

/** Surfaces where people leave small things. */
const TABLETOP = 'dish personal reading decor tissuebox';
/** Seats: what people drop on a sofa. */
const SEAT =
  'pillow teddybear laptop book newspaper cellphone creditcard keychain remotecontrol watch box';

const RECEPTACLE_LIST: readonly ReceptacleType[] = [
  rec('armchair', 'never', 2, SEAT),
  rec('bathtubbasin', 'never', 1, 'soapbar soapbottle cloth'),
  rec('bed', 'never', 4, `${SEAT} toy cloth`),
  rec(
    'cabinet',
    'sometimes',
    1,
    'dish cookware kitchenware bottle toiletry cloth handtowel towel candle vase box',
  ),
  rec('coffeemachine', 'never', 3, 'mug cup'),
  rec('coffeetable', 'never', 4, `${TABLETOP} candle houseplant`),
  rec(
    'countertop',
    'never',
    6,
    `food ${TABLETOP} cookware utensil kitchenware bottle toiletry cloth handtowel houseplant`,
  ),
  rec('desk', 'never', 4, `${TABLETOP} desklamp`),
  rec('diningtable', 'never', 6, `food ${TABLETOP} cookware utensil kitchenware bottle houseplant`),
  rec(
    'drawer',
    'sometimes',
    1,
    'utensil personal book dishsponge saltshaker peppershaker soapbar toiletpaper spraybottle soapbottle cloth handtowel candle',
  ),
  rec('dresser', 'never', 4, `${TABLETOP} bottle desklamp television houseplant`),
  rec('fridge', 'always', 5, 'food dish pan pot winebottle'),
  rec(
    'garbagecan',
    'never',
    1,
    'food kitchenware bottle toiletry cloth newspaper cd pen pencil candle',
  ),
  rec('handtowelholder', 'never', 6, 'handtowel'),
  rec('laundryhamper', 'never', 2, 'cloth towel handtowel'),
  rec('microwave', 'always', 1, 'food dish'),
  rec('ottoman', 'never', 1, SEAT),
  rec('safe', 'always', 1, 'cd cellphone creditcard keychain watch'),
  rec('shelf', 'never', 2, `${TABLETOP} kitchenware bottle toiletry candle houseplant`),
  rec('sidetable', 'never', 4, `food ${TABLETOP} utensil kitchenware bottle desklamp houseplant`),
  rec('sinkbasin', 'never', 2, 'food dish cookware utensil dishsponge soapbar cloth'),
  rec('sofa', 'never', 3, SEAT),
  rec('stoveburner', 'never', 2, 'pan pot kettle'),
  // A toaster takes only bread slices in AI2-THOR, which ALFWorld's text mode never makes.
  rec('toaster', 'never', 0, ''),
  rec('toilet', 'never', 2, 'soapbar soapbottle spraybottle toiletpaper candle cloth tissuebox'),
  rec('toiletpaperhanger', 'never', 6, 'toiletpaper'),
  rec('towelholder', 'never', 6, 'towel'),
  rec('tvstand', 'never', 2, `${TABLETOP} television`),
];

const RECEPTACLE_TYPES: ReadonlyMap<string, ReceptacleType> = new Map(
  RECEPTACLE_LIST.map((t) => [t.name, t]),
);

// A misspelt kind or object name in `holds` would silently hold nothing: fail at load instead.
for (const r of RECEPTACLE_LIST) {
  for (const word of r.holds) {
    if (!OBJECT_LIST.some((o) => o.kind === word || o.name === word)) {
      throw new Error(`household vocabulary: ${r.name} holds unknown "${word}"`);
    }
  }
}

const CAN_CONTAIN = new Set(
  RECEPTACLE_LIST.flatMap((r) =>
    OBJECT_LIST.filter((o) => r.holds.includes(o.kind) || r.holds.includes(o.name)).map(
      (o) => `${r.name}/${o.name}`,
    ),
  ),
);

/** PDDL's `canContain`: whether a receptacle of this type can hold an object of that type. */
export function canContain(receptacleType: string, objectType: string): boolean {
  return CAN_CONTAIN.has(`${receptacleType}/${objectType}`);
}

export function objectType(name: string): ObjectType {
  const type = OBJECT_TYPES.get(name);
  if (!type) throw new RangeError(`unknown household object type "${name}"`);
  return type;
}

export function receptacleType(name: string): ReceptacleType {
  const type = RECEPTACLE_TYPES.get(name);
  if (!type) throw new RangeError(`unknown household receptacle type "${name}"`);
  return type;
}

export function hasAffordance(type: string, affordance: Affordance): boolean {
  return objectType(type).affordances.has(affordance);
}

/** The appliance each processing step needs, as in ALFWorld: sink basin, microwave, fridge. */
export const APPLIANCES = { clean: 'sinkbasin', heat: 'microwave', cool: 'fridge' } as const;
export type Treatment = keyof typeof APPLIANCES;

export type RoomType = 'kitchen' | 'livingroom' | 'bedroom' | 'bathroom';
export const ROOM_TYPES: readonly RoomType[] = ['kitchen', 'livingroom', 'bedroom', 'bathroom'];

/** A receptacle type in a room: `chance` that the room has any, then `min`–`max` of them. */
export interface Furnishing {
  type: string;
  min: number;
  max: number;
  chance: number;
}

export interface RoomSpec {
  furniture: readonly Furnishing[];
  /** Object types that may appear, each with probability `objectChance`. */
  objects: readonly string[];
  objectChance: number;
  /** Lamps and other fixtures, each with its own chance of being there (one instance). */
  fixtures: Readonly<Record<string, number>>;
}

const furnish = (spec: string): Furnishing[] =>
  spec
    .trim()
    .split(/\s+/)
    .map((entry) => {
      const [type = '', min = '1', max = '1', chance = '1'] = entry.split(':');
      return { type, min: Number(min), max: Number(max), chance: Number(chance) };
    });

const words = (list: string) => list.trim().split(/\s+/);

/**
 * The four rooms, sized after ALFWorld's: kitchens with many cabinets and drawers, living rooms
 * with seats and side tables, bedrooms with a bed, drawers and shelves, bathrooms with a toilet,
 * sink basins and towel holders. Furniture entries read `type:min:max:chance`.
 */
export const ROOMS: Readonly<Record<RoomType, RoomSpec>> = {
  kitchen: {
    furniture: furnish(`
      cabinet:3:16 coffeemachine countertop:1:3 diningtable:1:2:0.55 drawer:1:8 fridge
      garbagecan microwave safe:1:1:0.05 shelf:1:3:0.2 sidetable:1:1:0.15 sinkbasin
      stoveburner:2:4 toaster`),
    objects: words(`
      apple bread egg lettuce potato tomato bowl cup mug plate pan pot kettle butterknife knife
      fork spoon spatula ladle dishsponge saltshaker peppershaker papertowelroll winebottle
      glassbottle soapbottle spraybottle vase statue creditcard cellphone`),
    objectChance: 0.65,
    fixtures: { houseplant: 0.35 },
  },
  livingroom: {
    furniture: furnish(`
      armchair:1:2:0.8 cabinet:1:4:0.15 coffeetable:1:2:0.8 diningtable:1:1:0.45
      drawer:1:6:0.7 dresser:1:1:0.35 garbagecan ottoman:1:1:0.15 safe:1:1:0.1 shelf:1:6:0.4
      sidetable:1:3:0.85 sofa:1:2 tvstand:1:1:0.4`),
    objects: words(`
      keychain creditcard remotecontrol pillow laptop newspaper book box statue vase watch
      cellphone plate bowl tissuebox candle pen pencil`),
    objectChance: 0.6,
    fixtures: { floorlamp: 0.8, desklamp: 0.35, television: 0.9, houseplant: 0.7 },
  },
  bedroom: {
    furniture: furnish(`
      armchair:1:1:0.2 bed cabinet:1:3:0.15 desk:1:2:0.6 drawer:2:8:0.95 dresser:1:1:0.5
      garbagecan laundryhamper:1:1:0.25 safe:1:1:0.15 shelf:1:6:0.6 sidetable:1:2:0.65`),
    objects: words(`
      book keychain pillow cd creditcard pen pencil laptop alarmclock cellphone mug bowl
      baseballbat basketball tennisracket teddybear box cloth statue tissuebox vase watch`),
    objectChance: 0.6,
    fixtures: { desklamp: 0.85, floorlamp: 0.15, houseplant: 0.2 },
  },
  bathroom: {
    furniture: furnish(`
      bathtubbasin:1:1:0.7 cabinet:2:6:0.55 countertop:1:1:0.85 drawer:1:4:0.4
      dresser:1:1:0.07 garbagecan handtowelholder:1:2:0.9 shelf:1:3:0.25 sinkbasin:1:2 toilet
      toiletpaperhanger:1:1:0.95 towelholder:1:1:0.9`),
    objects: words(`
      soapbottle soapbar spraybottle toiletpaper cloth handtowel towel candle tissuebox
      dishsponge papertowelroll`),
    objectChance: 0.75,
    fixtures: {},
  },
};
