import { contentWords, words } from '../../core/text.ts';
import type { Observation } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';

/**
 * What a web episode's progress says about each candidate, as hashed indicator tokens for the
 * choice policy (no task spec, no site: the instruction, the page and the episode's own actions):
 * - the task's kind (its opening words) × the verb × the page kind: "how many … " on a post page
 *   ends with an answer, "open the post …" on it with `stop []`;
 * - how far the episode is and what it did last (a search sent, a click) × the verb;
 * - whether the page is the one the instruction names (a quoted title or a name is its heading or
 *   in its URL): where navigation tasks stop and change tasks act;
 * - whether this value was typed before in the episode (searching again rarely helps);
 * - for clicks, whether the element's name is what the instruction quotes or names;
 * - for answers, how many of the question's own words surround the answer.
 */
export function webTokens(
  observation: Observation,
  history: readonly string[],
  pageKind: string,
  action: string,
  context: string,
): string[] {
  const facts = episodeFacts(observation, history);
  const verb = /^([a-z_]+)/.exec(action)?.[1] ?? '';
  const tokens = [
    `wk:${facts.opening}|${verb}|${pageKind}`,
    `wk:${facts.opening}|${verb}`,
    `wp:${Math.min(6, history.length)}|${verb}`,
    `wl:${facts.lastVerb}|${verb}`,
    `wn:${facts.named ? 1 : 0}|${verb}|${facts.opening}`,
    `ws:${facts.searched ? 1 : 0}|${verb}|${facts.opening}`,
  ];
  if (verb === 'type') {
    const value = typedValue(action) ?? '';
    tokens.push(`wt:${facts.typed.has(value.toLowerCase()) ? 'again' : 'new'}|${facts.opening}`);
    tokens.push(`wq:${facts.quoted.has(value.toLowerCase()) ? 1 : 0}|${facts.opening}`);
  }
  if (verb === 'click') {
    const name = context
      .replace(/^\S+\s+/, '')
      .trim()
      .toLowerCase();
    tokens.push(`wc:${facts.quoted.has(name) ? 1 : 0}|${facts.opening}`);
    const shared = contentWords(name).filter((w) => facts.asked.has(w)).length;
    tokens.push(`wo:${Math.min(3, shared)}|${facts.opening}`);
  }
  if (verb === 'stop') {
    const around = contentWords(context).filter((w) => facts.asked.has(w)).length;
    const empty = action.trim() === 'stop []';
    tokens.push(
      `wa:${Math.min(3, around)}|${facts.opening}`,
      `we:${empty ? 1 : 0}|${facts.named ? 1 : 0}|${facts.opening}`,
    );
  }
  return tokens;
}

interface EpisodeFacts {
  /** The instruction's first two words: its kind ("how_many", "open_the", "upvote_the"). */
  opening: string;
  asked: Set<string>;
  /** Quoted spans and identifier-like names of the instruction, lower-cased. */
  quoted: Set<string>;
  /** Values typed so far, lower-cased. */
  typed: Set<string>;
  lastVerb: string;
  searched: boolean;
  /** The page is the one the instruction names (its heading, title or URL holds the name). */
  named: boolean;
}

const memo = new WeakMap<Observation, { history: readonly string[]; facts: EpisodeFacts }>();

function episodeFacts(observation: Observation, history: readonly string[]): EpisodeFacts {
  const cached = memo.get(observation);
  if (cached && cached.history === history) return cached.facts;
  const { instruction } = observation;
  const quoted = new Set<string>();
  for (const m of instruction.matchAll(/["“']([^"”']{2,80})["”']/g))
    quoted.add((m[1] as string).toLowerCase());
  for (const m of instruction.matchAll(/\b[\w-]*(?:_|\d)[\w-]*\b|\bf\/[\w-]+/g))
    if ((m[0] as string).length >= 3) quoted.add((m[0] as string).toLowerCase());
  const typed = new Set<string>();
  for (const action of history) {
    const value = typedValue(action);
    if (value !== undefined) typed.add(value.toLowerCase());
  }
  const tree = parseTree(observation.text);
  const titles = [
    tree?.url ? decodeURIComponent(tree.url).replaceAll('+', ' ') : '',
    ...(tree?.nodes ?? [])
      .filter((n) => n.role === 'heading' || n.role === 'RootWebArea')
      .map((n) => n.name ?? ''),
  ]
    .join('\n')
    .toLowerCase();
  const facts: EpisodeFacts = {
    opening: words(instruction).slice(0, 2).join('_'),
    asked: new Set(contentWords(instruction)),
    quoted,
    typed,
    lastVerb: /^([a-z_]+)/.exec(history.at(-1) ?? '')?.[1] ?? 'start',
    searched: history.some((a) => /\] \[1\]$/.test(a)),
    named: [...quoted].some((q) => titles.includes(q.replace(/^f\//, ''))),
  };
  memo.set(observation, { history, facts });
  return facts;
}

/** The text of `type [id] [text] [0|1]`. */
function typedValue(action: string): string | undefined {
  return /^type \[[^\]]*\] \[(.*)\] \[[01]\]$/.exec(action.trim())?.[1];
}
