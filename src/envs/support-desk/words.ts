/**
 * The support desk's own word lists: the names, towns and goods its generated shop is made of.
 * Written for this env; nothing here is taken from another data set.
 */

/** Customers' given names. */
export const GIVEN_NAMES = [
  'Oren',
  'Mira',
  'Tobin',
  'Leda',
  'Casper',
  'Ines',
  'Rufus',
  'Talia',
  'Emil',
  'Nora',
  'Jonas',
  'Wren',
  'Silas',
  'Greta',
  'Hugo',
  'Alba',
  'Milo',
  'Vera',
  'Otto',
  'Lena',
] as const;

/** Customers' family names; few enough that namesakes are common, as on a real desk. */
export const FAMILY_NAMES = [
  'Vale',
  'Marsh',
  'Quill',
  'Brandt',
  'Holloway',
  'Pike',
  'Okafor',
  'Lindqvist',
  'Sato',
  'Ferro',
  'Dunmore',
  'Novak',
] as const;

/** Towns customers live in; a namesake is told apart by the town. */
export const TOWNS = [
  'Harlow Bay',
  'Ketterby',
  'Millstone',
  'Ashgrove',
  'Port Renna',
  'Durnford',
  'Elmbridge',
  'Salt Hollow',
] as const;

/** Goods the shop sells: each kind with the materials it comes in and its price range. */
export const GOODS: ReadonlyArray<{
  kind: string;
  materials: readonly string[];
  price: [number, number];
}> = [
  { kind: 'desk lamp', materials: ['walnut', 'copper', 'brass', 'bamboo'], price: [28, 96] },
  { kind: 'teapot', materials: ['ceramic', 'cast iron', 'glass'], price: [18, 64] },
  { kind: 'throw blanket', materials: ['wool', 'linen', 'cotton'], price: [35, 120] },
  {
    kind: 'cutting board',
    materials: ['walnut', 'bamboo', 'slate', 'olive wood'],
    price: [14, 58],
  },
  { kind: 'water bottle', materials: ['steel', 'glass', 'copper'], price: [12, 38] },
  { kind: 'plant pot', materials: ['terracotta', 'ceramic', 'concrete'], price: [9, 45] },
  { kind: 'wall clock', materials: ['walnut', 'brass', 'cork'], price: [22, 88] },
  { kind: 'serving bowl', materials: ['ceramic', 'olive wood', 'glass'], price: [16, 52] },
  { kind: 'tote bag', materials: ['canvas', 'linen', 'leather'], price: [15, 79] },
  { kind: 'candle holder', materials: ['brass', 'glass', 'concrete'], price: [8, 34] },
];

/** What an order can be: only pending orders can be cancelled, only delivered ones refunded. */
export const ORDER_STATUSES = ['pending', 'shipped', 'delivered', 'cancelled'] as const;

/** An order's status. */
export type OrderStatus = (typeof ORDER_STATUSES)[number] | 'refunded';
