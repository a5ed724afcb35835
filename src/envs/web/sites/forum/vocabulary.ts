/**
 * The forum's own word lists: forums with their topics, user-name parts, and the phrases posts
 * and comments are built from. Written for this project. No apostrophes or quotes anywhere, so
 * titles read back unchanged from the accessibility tree (WebArena quotes names with either).
 */

/** A forum's slug, one-line description and the things its members talk about. */
export interface ForumTopic {
  name: string;
  description: string;
  nouns: readonly string[];
}

export const FORUM_TOPICS: readonly ForumTopic[] = [
  {
    name: 'cooking',
    description: 'Home cooking, weeknight dinners and kitchen experiments',
    nouns: ['cast iron pan', 'risotto', 'chili recipe', 'knife set', 'stock pot', 'curry paste'],
  },
  {
    name: 'woodworking',
    description: 'Joinery, hand tools and furniture built in small shops',
    nouns: ['dovetail jig', 'workbench', 'hand plane', 'walnut slab', 'table saw', 'chisel set'],
  },
  {
    name: 'astronomy',
    description: 'Telescopes, star charts and the night sky from backyards',
    nouns: ['refractor', 'star tracker', 'eyepiece', 'dark site', 'planet filter', 'mount'],
  },
  {
    name: 'cycling',
    description: 'Road, gravel and commuting by bike',
    nouns: ['gravel bike', 'saddle', 'chain lube', 'tubeless setup', 'bike light', 'pannier'],
  },
  {
    name: 'boardgames',
    description: 'Tabletop games, game nights and rules questions',
    nouns: ['deck builder', 'co-op game', 'card sleeve', 'expansion', 'game table', 'dice tower'],
  },
  {
    name: 'gardening',
    description: 'Vegetable beds, balcony pots and compost',
    nouns: ['raised bed', 'tomato plant', 'compost bin', 'seed tray', 'drip line', 'pruning saw'],
  },
  {
    name: 'photography',
    description: 'Cameras, lenses and learning to see light',
    nouns: ['prime lens', 'tripod', 'light meter', 'film camera', 'flash unit', 'lens hood'],
  },
  {
    name: 'birdwatching',
    description: 'Sightings, field guides and binoculars',
    nouns: ['binocular', 'feeder', 'field guide', 'spotting scope', 'nest box', 'bird call app'],
  },
  {
    name: 'chess',
    description: 'Openings, endgames and over-the-board stories',
    nouns: ['opening book', 'endgame drill', 'chess clock', 'puzzle set', 'blitz habit', 'board'],
  },
  {
    name: 'homebrewing',
    description: 'Beer, cider and kombucha made at home',
    nouns: ['fermenter', 'yeast starter', 'hop schedule', 'bottling wand', 'wort chiller', 'keg'],
  },
  {
    name: 'running',
    description: 'Training plans, races and shoes',
    nouns: ['marathon plan', 'trail shoe', 'tempo run', 'foam roller', 'race belt', 'watch'],
  },
  {
    name: 'aquariums',
    description: 'Fish keeping, planted tanks and water chemistry',
    nouns: ['canister filter', 'planted tank', 'heater', 'shrimp colony', 'test kit', 'substrate'],
  },
  {
    name: 'knitting',
    description: 'Yarn, patterns and works in progress',
    nouns: ['wool blend', 'sock pattern', 'circular needle', 'cable stitch', 'cardigan', 'swatch'],
  },
  {
    name: 'retrocomputing',
    description: 'Old machines, restorations and vintage software',
    nouns: ['floppy drive', 'CRT monitor', 'sound card', 'keyboard switch', 'power supply', 'ROM'],
  },
  {
    name: 'baking',
    description: 'Bread, pastry and sourdough starters',
    nouns: ['sourdough starter', 'proofing basket', 'pie crust', 'stand mixer', 'baguette', 'oven'],
  },
  {
    name: 'hiking',
    description: 'Trails, day hikes and long walks with a pack',
    nouns: ['daypack', 'trekking pole', 'rain shell', 'trail map', 'water filter', 'boot'],
  },
  {
    name: 'pottery',
    description: 'Wheel throwing, glazes and kilns',
    nouns: ['pottery wheel', 'glaze recipe', 'kiln', 'clay body', 'trimming tool', 'mug handle'],
  },
  {
    name: 'jazz',
    description: 'Records, standards and learning to improvise',
    nouns: ['standard', 'walking bass line', 'record', 'chord chart', 'saxophone reed', 'solo'],
  },
  {
    name: 'languages',
    description: 'Learning and teaching languages',
    nouns: ['flashcard deck', 'grammar book', 'tutor', 'podcast', 'verb table', 'phrasebook'],
  },
  {
    name: 'urbanism',
    description: 'Streets, transit and how cities are built',
    nouns: ['bike lane', 'tram line', 'zoning map', 'bus route', 'plaza', 'crosswalk'],
  },
  {
    name: 'beekeeping',
    description: 'Hives, honey and keeping colonies healthy',
    nouns: ['hive box', 'smoker', 'queen cage', 'honey extractor', 'bee suit', 'frame'],
  },
  {
    name: 'bonsai',
    description: 'Small trees, wiring and repotting',
    nouns: ['juniper', 'wire gauge', 'training pot', 'concave cutter', 'maple', 'soil mix'],
  },
  {
    name: 'climbing',
    description: 'Bouldering, ropes and training for grip',
    nouns: ['chalk bag', 'climbing shoe', 'hangboard', 'belay device', 'crash pad', 'rope'],
  },
  {
    name: 'sailing',
    description: 'Dinghies, knots and weather at sea',
    nouns: ['dinghy', 'tiller', 'mainsail', 'life jacket', 'mooring line', 'chart plotter'],
  },
];

/** Names of forums a task may ask to create: none of them exists in the generated site. */
export const NEW_FORUM_NAMES: readonly string[] = [
  'origami',
  'fermentation',
  'kayaking',
  'calligraphy',
  'mycology',
  'lockpicking',
  'terrariums',
  'juggling',
  'modelrailways',
  'stargazing_kids',
  'mapmaking',
  'tea',
  'puzzles',
  'quilting',
  'skateboarding',
  'synthesizers',
];

/** Descriptions for forums a task asks to create. */
export const NEW_FORUM_DESCRIPTIONS: readonly string[] = [
  'A quiet place to share projects and ask questions',
  'Tips, progress photos and friendly advice',
  'For beginners and old hands alike',
  'Show what you made this week',
  'Questions, answers and long discussions',
  'Everything about the hobby, from tools to technique',
];

export const NAME_FIRST: readonly string[] = [
  'amber',
  'basil',
  'cedar',
  'dusty',
  'ember',
  'fennel',
  'gravel',
  'hazel',
  'indigo',
  'juniper',
  'kelp',
  'lumen',
  'maple',
  'nimbus',
  'onyx',
  'pepper',
  'quill',
  'rowan',
  'sable',
  'tansy',
  'umber',
  'velvet',
  'willow',
  'yarrow',
  'zephyr',
];

export const NAME_SECOND: readonly string[] = [
  'otter',
  'falcon',
  'badger',
  'heron',
  'lynx',
  'moth',
  'newt',
  'orca',
  'panda',
  'raven',
  'stoat',
  'tapir',
  'vole',
  'wren',
  'yak',
  'gecko',
];

/** Title patterns; `{noun}` and `{other}` are topic nouns, `{adj}` an adjective, `{n}` a number. */
export const TITLE_PATTERNS: readonly string[] = [
  'Best {noun} for beginners',
  'My first {noun} after {n} months',
  'How do you store your {noun}',
  'Question about {noun} and {other}',
  'Finally finished my {adj} {noun}',
  'Is a {adj} {noun} worth it',
  '{Adj} {noun} tips that actually work',
  'Upgraded my {noun} and never looked back',
  'Help choosing a {noun}',
  'What went wrong with my {noun}',
  'Weekly thread on {noun} and {other}',
  'The {adj} {noun} I keep coming back to',
  'Swapped my {noun} for a {other}',
  'Cheap {noun} or {adj} {other}',
  'Lessons from {n} years with a {noun}',
  'Unpopular opinion about the {noun}',
];

export const ADJECTIVES: readonly string[] = [
  'secondhand',
  'lightweight',
  'budget',
  'handmade',
  'vintage',
  'compact',
  'sturdy',
  'quiet',
  'tiny',
  'oversized',
  'borrowed',
  'homemade',
];

/** Body sentences; `{noun}`, `{other}`, `{adj}` and `{n}` as in titles. */
export const BODY_SENTENCES: readonly string[] = [
  'I have been using a {adj} {noun} for about {n} weeks now.',
  'Most advice I found online says to start with a {noun}.',
  'The {other} was the part that surprised me most.',
  'Would you spend more on the {noun} or on the {other}?',
  'Any pointers are welcome, I am still learning.',
  'Attaching my notes in case they help someone else.',
  'It took {n} tries before I got it right.',
  'A friend lent me a {other} and it changed everything.',
  'I read the wiki but it does not cover the {noun}.',
  'Curious how others handle this in a small space.',
  'Budget is tight so I want to buy once and buy right.',
  'Happy to answer questions about my {adj} setup.',
];

/** Comment sentences, combined one or two at a time. */
export const COMMENT_SENTENCES: readonly string[] = [
  'Great write-up, thanks for sharing.',
  'I had the same problem with my {noun}.',
  'Try a {adj} {noun} first and see how it feels.',
  'This is the way.',
  'Could you post a photo of the {other}?',
  'Hard disagree, the {noun} is overrated.',
  'Saving this for later.',
  'Mine lasted {n} years before it gave up.',
  'Check the pinned thread, it covers the {noun}.',
  'Honestly the {other} matters more.',
  'Welcome to the hobby!',
  'I switched last year and do not regret it.',
  'Same here, {n} months in and still learning.',
  'That {adj} look is exactly what I want.',
  'Patience is the real trick.',
  'Which {noun} did you end up with?',
];

/** Words the bios of generated users are built from. */
export const BIO_PHRASES: readonly string[] = [
  'Weekend tinkerer',
  'Slow learner, fast typist',
  'Collector of half-finished projects',
  'Lurker turned poster',
  'Here for the good advice',
  'Asking the questions others will not',
  'Morning person with too many hobbies',
  'Quietly obsessed',
];

/** Phrases for content a task asks the agent to write (new titles, bodies, comments). */
export const NEW_TEXT_OPENERS: readonly string[] = [
  'Thanks for the detailed answer',
  'Update after trying the suggestions',
  'Small correction',
  'Quick follow-up',
  'Sharing my results',
  'Still looking for advice',
  'Agreed with everything above',
  'One more tip',
];

export const NEW_TEXT_ENDINGS: readonly string[] = [
  'the {noun} works fine now',
  'the {noun} made the difference',
  'I will report back next week',
  'the {other} was the culprit',
  'a {adj} {noun} is enough',
  'I ordered a new {other}',
  'it took {n} hours in total',
  'nobody mentions the {noun}',
];
