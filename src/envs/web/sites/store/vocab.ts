/**
 * The store admin's own word lists: what it sells, who buys, where they live, what they write.
 * Written for this project; the generator combines them into unique names.
 */

/** Catalog categories, each with the product nouns it sells. */
export const CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  Kitchen: ['Kettle', 'Skillet', 'Cutting Board', 'Tea Tin', 'Salad Bowl', 'Pepper Mill'],
  Garden: ['Watering Can', 'Trowel', 'Planter', 'Hose Reel', 'Seed Tray', 'Pruning Shears'],
  Outdoor: ['Tent', 'Camp Stool', 'Lantern', 'Daypack', 'Sleeping Mat', 'Water Bottle'],
  Office: ['Desk Lamp', 'Notebook', 'Pen Case', 'Monitor Stand', 'Desk Tray', 'Wall Clock'],
  Apparel: ['Rain Jacket', 'Wool Sweater', 'Canvas Apron', 'Beanie', 'Scarf', 'Work Shirt'],
  Bath: ['Bath Towel', 'Soap Dish', 'Bath Mat', 'Shower Caddy', 'Hand Towel', 'Robe'],
};

/** Leading words that make product names distinct: `Harbor Oak Kettle`. */
export const PRODUCT_PREFIXES = [
  'Alder',
  'Birch',
  'Cedar',
  'Dune',
  'Ember',
  'Fjord',
  'Glen',
  'Harbor',
  'Iris',
  'Juniper',
  'Kestrel',
  'Linden',
  'Maple',
  'Nimbus',
  'Orchard',
  'Pebble',
  'Quarry',
  'Ridge',
  'Summit',
  'Tundra',
  'Umber',
  'Valley',
  'Willow',
  'Yarrow',
];

/** Second words: a material or finish. */
export const PRODUCT_MATERIALS = [
  'Oak',
  'Steel',
  'Linen',
  'Copper',
  'Bamboo',
  'Stoneware',
  'Canvas',
  'Cotton',
  'Walnut',
  'Enamel',
];

export const COLORS = ['Black', 'White', 'Slate', 'Olive', 'Rust', 'Navy', 'Sand', 'Teal'];

/** Sizes for apparel and bath textiles; other categories have `One Size`. */
export const SIZES = ['XS', 'S', 'M', 'L', 'XL'];
export const SIZED_CATEGORIES = new Set(['Apparel', 'Bath']);

export const FIRST_NAMES = [
  'Ada',
  'Bruno',
  'Celia',
  'Dmitri',
  'Elena',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Keiko',
  'Lars',
  'Mila',
  'Nadia',
  'Oscar',
  'Priya',
  'Quentin',
  'Rosa',
  'Samir',
  'Tessa',
  'Ulrich',
  'Vera',
  'Wendell',
  'Ximena',
  'Yusuf',
  'Zora',
];

export const LAST_NAMES = [
  'Abernathy',
  'Brightwater',
  'Castellano',
  'Delacroix',
  'Eastwood',
  'Fairbanks',
  'Gallagher',
  'Holloway',
  'Ivanova',
  'Jablonski',
  'Kowalczyk',
  'Lindqvist',
  'Marchetti',
  'Nakamura',
  'Okafor',
  'Pemberton',
  'Quintero',
  'Rasmussen',
  'Sorensen',
  'Thackeray',
  'Underwood',
  'Valenti',
  'Whitlock',
  'Yamada',
];

export const CITIES = [
  'Brookhaven',
  'Clearwater',
  'Dalton',
  'Eastport',
  'Fairmont',
  'Glenrock',
  'Hillsdale',
  'Ironwood',
  'Lakeview',
  'Millbrook',
  'Northfield',
  'Oakridge',
  'Pinecrest',
  'Riverton',
  'Stonebridge',
  'Westbury',
];

export const STREET_NAMES = [
  'Elm',
  'Harbor',
  'Mill',
  'Orchard',
  'Quarry',
  'Spruce',
  'Station',
  'Sunset',
  'Union',
  'Willow',
];
export const STREET_KINDS = ['Street', 'Avenue', 'Road', 'Lane', 'Way'];

/** Customer groups, as an admin panel's pricing tiers. */
export const CUSTOMER_GROUPS = ['General', 'Wholesale', 'Retailer', 'VIP'];

export const EMAIL_DOMAINS = ['mailbox.test', 'postal.test', 'inbox.test', 'letters.test'];

/** Review titles by rating band (1–2, 3, 4–5). */
export const REVIEW_TITLES: Readonly<Record<'low' | 'mid' | 'high', readonly string[]>> = {
  low: [
    'Broke within a week',
    'Not as pictured',
    'Disappointing finish',
    'Arrived scratched',
    'Too flimsy',
    'Would not buy again',
  ],
  mid: [
    'Does the job',
    'Fine for the price',
    'Average quality',
    'Okay but small',
    'Decent, not great',
    'Mixed feelings',
  ],
  high: [
    'Love it',
    'Exactly what I wanted',
    'Sturdy and handsome',
    'Great value',
    'Use it every day',
    'Beautifully made',
    'Better than expected',
  ],
};

export const REVIEW_SENTENCES: Readonly<Record<'low' | 'mid' | 'high', readonly string[]>> = {
  low: [
    'The seams came apart quickly.',
    'The color is much duller than the photo.',
    'It wobbles on a flat surface.',
    'Customer service was slow to reply.',
  ],
  mid: [
    'It works, though the finish is rough in places.',
    'Shipping took longer than promised.',
    'Smaller than I imagined but usable.',
    'Good enough for occasional use.',
  ],
  high: [
    'The build quality is excellent.',
    'It looks great in our home.',
    'Well packed and arrived early.',
    'I bought a second one as a gift.',
  ],
};

/** Order comments staff leave; tasks also ask for new ones made from these words. */
export const COMMENT_OPENERS = [
  'Customer called about',
  'Please check',
  'Follow up on',
  'Note regarding',
  'Warehouse asked about',
];
export const COMMENT_TOPICS = [
  'the delivery window',
  'gift wrapping',
  'a damaged box',
  'the billing address',
  'an express upgrade',
  'a missing invoice',
  'the tracking number',
  'a partial refund',
];

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Years the generated order history spans. */
export const ORDER_YEARS = [2022, 2023, 2024];
