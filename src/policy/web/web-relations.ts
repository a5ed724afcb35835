import { memoize } from '../../core/memo.ts';
import { contentWords, words } from '../../core/text.ts';
import type { Observation } from '../../core/types.ts';
import { parseTree, prop } from '../../envs/formats/web-tree.ts';
import type { WebCandidate } from './web-candidates.ts';

/**
 * Relations between a web task's instruction and each candidate action, as dense scalars for the
 * choice policy. They say what carries across every instance of a task template — "the link
 * whose name the instruction quotes", "the number whose neighbours are the question's words",
 * "the field whose label the instruction names before the quoted value", "the form is filled,
 * submit it" — where hashed words of one instance do not. Only the instruction, the page and the
 * episode's own pages and actions are read: no task spec, no site.
 */
export const WEB_RELATIONS = 24;

/** What a web decision's candidates are compared with: the instruction and the episode so far. */
export interface WebFacts {
  /** Stems of the instruction's content words. */
  asked: Set<string>;
  /** Quoted spans and identifiers (`lumen_tapir`, `f/cooking`, `OUT-6679`), lower-cased. */
  entities: string[];
  /** Each quoted span with the stems of the three words before it ("titled", "body"). */
  quotes: Array<{ text: string; cue: Set<string> }>;
  /** Values typed so far, lower-cased. */
  typed: Set<string>;
  /** URLs of the pages the episode's actions led to before this one. */
  visited: Set<string>;
  url: string;
  /** The page's heading, title or URL holds an entity: the page the instruction names. */
  named: boolean;
  /** The page shows a status message (a change was made: "Your post was created."). */
  status: boolean;
  /** Values the page's fields hold, lower-cased. */
  fieldValues: Set<string>;
  /** Share of the current URL's path words that the instruction has (`/f/cooking` for "the cooking forum"). */
  urlCover: number;
  /** The question asks for a number, a date, or neither. */
  asks: 'number' | 'date' | 'other';
}

/** The facts of a decision: its observation, the actions so far and the pages they led to. */
export function webFacts(
  observation: Observation,
  history: readonly string[],
  observations: readonly Observation[],
): WebFacts {
  const { instruction } = observation;
  const quotes: WebFacts['quotes'] = [];
  for (const m of instruction.matchAll(/["“']([^"”']{2,80})["”']/g)) {
    const before = words(instruction.slice(0, m.index)).slice(-3);
    quotes.push({ text: (m[1] as string).toLowerCase(), cue: new Set(before.map(stem)) });
  }
  const entities = new Set(quotes.map((q) => q.text));
  for (const m of instruction.matchAll(/\b[\w-]*(?:_|\d)[\w-]*\b|\bf\/[\w-]+/g)) {
    const token = (m[0] as string).toLowerCase();
    if (token.length >= 3) entities.add(token.replace(/^f\//, ''));
  }
  const typed = new Set<string>();
  for (const action of history) {
    const value = /^type \[[^\]]*\] \[(.*)\] \[[01]\]$/.exec(action.trim())?.[1];
    if (value !== undefined) typed.add(value.toLowerCase());
  }
  const tree = parseTree(observation.text);
  const nodes = tree?.nodes ?? [];
  const url = tree?.url ?? '';
  const titles = [
    decodeURIComponent(url).replaceAll('+', ' '),
    ...nodes.filter((n) => n.role === 'heading' || n.role === 'RootWebArea').map((n) => n.name),
  ]
    .join('\n')
    .toLowerCase();
  const visited = new Set<string>();
  // observations[i] is the reply to history[i]: the last one is the page shown now.
  for (const page of observations.slice(0, -1)) {
    const at = /^URL: (\S+)/m.exec(page.text)?.[1];
    if (at) visited.add(at);
  }
  const opening = words(instruction).slice(0, 6).join(' ');
  const asked = new Set(contentWords(instruction).map(stem));
  return {
    asked,
    entities: [...entities],
    quotes,
    typed,
    visited,
    url,
    named: [...entities].some((e) => titles.includes(e)),
    urlCover: share(urlWords(url), asked),
    status: nodes.some((n, i) => n.role === 'status' && (nodes[i + 1]?.name ?? '').length > 0),
    fieldValues: new Set(
      nodes.flatMap((n) => {
        const value = prop(n, 'value');
        return value ? [value.toLowerCase()] : [];
      }),
    ),
    asks: /\b(how many|how much|count|number|total|karma|score|points)\b/.test(opening)
      ? 'number'
      : /\b(date|when|yyyy)\b/i.test(instruction)
        ? 'date'
        : 'other',
  };
}

/**
 * The relation scalars of one candidate (length {@link WEB_RELATIONS}), each in [-1, 1]:
 * 0 its name is an entity of the instruction; 1 contains one; 2–3 word overlap of its name with
 * the instruction (both ways); 4 its URL's path words in the instruction; 5–6 its item (post, row,
 * comment) holds an entity / the instruction's words; 7–8 an answer's neighbours are the
 * question's words; 9 an answer repeats the question; 10 the value was typed before; 11 the
 * field already holds it; 12 the field's label is the word before the quoted value; 13 the
 * page's fields hold every quoted value; 14 a form's submit button; 15 the page is the one named;
 * 16 a status message shows; 17 the link leads to a page visited before; 18 to this page; 19 an
 * answer's shape fits the question (a number for "how many"); 20 every entity typed; 21 `stop []`;
 * 22 a number answer; 23 the current URL's path words in the instruction (the page it names).
 */
export function webRelations(facts: WebFacts, c: WebCandidate): Float32Array {
  const out = new Float32Array(WEB_RELATIONS);
  const name = c.name.toLowerCase().trim();
  const nameStems = stems(c.name);
  const is = (entity: string) => name === entity || name === `f/${entity}`;
  out[0] = name && facts.entities.some(is) ? 1 : 0;
  out[1] = name && facts.entities.some((e) => !is(e) && containsPhrase(name, e)) ? 1 : 0;
  out[2] = share(nameStems, facts.asked);
  out[3] = facts.asked.size
    ? nameStems.filter((w) => facts.asked.has(w)).length / facts.asked.size
    : 0;
  out[4] = c.url ? share(urlWordsOf(c.url), facts.asked) : 0;
  const block = c.block.toLowerCase();
  out[5] = block && facts.entities.some((e) => containsPhrase(block, e)) ? 1 : 0;
  out[6] = block ? Math.min(1, stems(block).filter((w) => facts.asked.has(w)).length / 4) : 0;
  const near = stemsWithoutNumbers(c.near);
  out[7] = share(near, facts.asked);
  out[8] = near.some((w) => facts.asked.has(w)) ? 1 : 0;
  if (c.verb === 'stop' && name) out[9] = nameStems.every((w) => facts.asked.has(w)) ? 1 : 0;
  if (c.verb === 'type') {
    out[10] = facts.typed.has(name) ? 1 : 0;
    out[11] = c.field && c.field.value.toLowerCase() === name ? 1 : 0;
    const label = new Set(stems(c.field?.label ?? ''));
    const quote = facts.quotes.find((q) => q.text === name);
    if (quote && label.size > 0) out[12] = [...quote.cue].some((w) => label.has(w)) ? 1 : -1;
  }
  const filled =
    facts.quotes.length > 0 && facts.quotes.every((q) => facts.fieldValues.has(q.text));
  out[13] = filled ? 1 : 0;
  out[14] = c.submits ? 1 : 0;
  out[15] = facts.named ? 1 : 0;
  out[16] = facts.status ? 1 : 0;
  if (c.url) {
    out[17] = facts.visited.has(c.url) ? 1 : 0;
    out[18] = c.url === facts.url ? 1 : 0;
  }
  const number = /^\$?[\d,]+(?:\.\d+)?$/.test(name);
  if (c.verb === 'stop' && name) {
    const date = /^\d{4}-\d{2}-\d{2}$/.test(name);
    const shape = number ? 'number' : date ? 'date' : 'other';
    out[19] = shape === facts.asks ? 1 : facts.asks === 'other' ? 0 : -1;
    out[22] = number ? 1 : 0;
  }
  out[20] = facts.entities.length > 0 && facts.entities.every((e) => facts.typed.has(e)) ? 1 : 0;
  out[21] = c.verb === 'stop' && !name ? 1 : 0;
  out[23] = facts.urlCover;
  return out;
}

/**
 * A text's content words, stemmed; {@link stemsWithoutNumbers} without numbers; a URL's {@link urlWords}.
 * Remembered: a page's names, items and links recur in every decision on it.
 */
const stems = memoize((text: string): readonly string[] => contentWords(text).map(stem), 10_000);
const stemsWithoutNumbers = memoize(
  (text: string): readonly string[] =>
    contentWords(text)
      .filter((w) => !/\d/.test(w))
      .map(stem),
  10_000,
);
const urlWordsOf = memoize(urlWords, 10_000);

/** A crude stemmer, enough to match "titled" with "Title" and "comments" with "comment". */
export function stem(word: string): string {
  return word
    .replace(/(?:ing|ed|es|s)$/, '')
    .replace(/e$/, '')
    .replace(/(.)\1$/, '$1');
}

function share(items: readonly string[], set: ReadonlySet<string>): number {
  if (items.length === 0) return 0;
  return items.filter((w) => set.has(w)).length / items.length;
}

/** `phrase` occurs in `text` as whole words. */
function containsPhrase(text: string, phrase: string): boolean {
  const at = text.indexOf(phrase);
  if (at < 0) return false;
  const before = text[at - 1];
  const after = text[at + phrase.length];
  return (!before || !/\w/.test(before)) && (!after || !/\w/.test(after));
}

/** The words of a URL's path and query (`/f/cooking?sort=new` → f, cooking, sort, new), stemmed. */
function urlWords(url: string): string[] {
  try {
    const { pathname, search } = new URL(url);
    return contentWords(`${pathname} ${decodeURIComponent(search)}`.replace(/[/_?=&+-]/g, ' '))
      .filter((w) => !/^\d+$/.test(w) && w.length > 1)
      .map(stem);
  } catch {
    return [];
  }
}
