/**
 * The nouns of a product title, as WebShop's type reward counts them: lower-cased tokens that the
 * part-of-speech tagger marks `NOUN` or `PROPN`, in order, repeats kept.
 *
 * WebShop's master branch (`goal.py`, `get_type_reward`) tags with spaCy's `en_core_web_sm` and
 * keeps tokens tagged `NOUN` or `PROPN` (its list also names `PNOUN`, which spaCy never emits);
 * only the unmerged `v2` branch loads `en_core_web_lg`. We use wink-nlp's
 * `wink-eng-lite-web-model`, which runs in-process without Python. Like spaCy, it tags most Title Case words as `PROPN`, adjectives
 * included (`Aluminum Free Deodorant` gives `aluminum`, `free`, `deodorant`), so for title-cased
 * titles "nouns" is close to "words that are not function words, numbers, verbs or punctuation".
 * Titles are tagged as written, not lower-cased first, because that is what WebShop does.
 *
 * The model costs about a tenth of a second to load, so it loads on the first call, not on import.
 * Rewards are scored over and over against the same few thousand titles, so results are memoised in
 * a bounded least-recently-used cache.
 */
import { createRequire } from 'node:module';

type WinkNlp = ReturnType<typeof import('wink-nlp').default>;

/** How many distinct titles keep their nouns cached; past this the least recently used goes. */
const CACHE_CAPACITY = 10_000;

const NOUN_TAGS: ReadonlySet<string> = new Set(['NOUN', 'PROPN']);

let tagger: WinkNlp | undefined;
const cache = new Map<string, readonly string[]>();

function loadTagger(): WinkNlp {
  if (tagger === undefined) {
    const require = createRequire(import.meta.url);
    const winkNlp: typeof import('wink-nlp').default = require('wink-nlp');
    const model: typeof import('wink-eng-lite-web-model').default = require('wink-eng-lite-web-model');
    // Sentence boundaries and POS only: negation, sentiment and entities do not change the tags.
    tagger = winkNlp(model, ['sbd', 'pos']);
  }
  return tagger;
}

function tagNouns(text: string): string[] {
  const nlp = loadTagger();
  const tokens = nlp.readDoc(text).tokens();
  const values = tokens.out(nlp.its.value);
  const tags = tokens.out(nlp.its.pos);
  return values.filter((_, i) => NOUN_TAGS.has(tags[i] ?? '')).map((value) => value.toLowerCase());
}

/** Lower-cased `NOUN`/`PROPN` tokens of `text` in order, repeats kept. Memoised; do not mutate. */
export function nouns(text: string): readonly string[] {
  const cached = cache.get(text);
  if (cached !== undefined) {
    cache.delete(text);
    cache.set(text, cached);
    return cached;
  }
  const found = Object.freeze(tagNouns(text));
  if (cache.size >= CACHE_CAPACITY) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(text, found);
  return found;
}
