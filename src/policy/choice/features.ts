import { actionContext, budgetOf, contentWords, priceIn, words } from '../../core/text.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import {
  isWebObservation,
  type WebCandidate,
  webCandidates,
  webPageKind,
} from '../web/web-candidates.ts';
import { webTokens } from '../web/web-features.ts';
import { WEB_RELATIONS, type WebFacts, webFacts, webRelations } from '../web/web-relations.ts';
import { type EpisodeMemory, episodeMemory, kindOf, parseCommand } from './episode-memory.ts';
import { addHashed, addHashedCrosses, type CrossTokens } from './hashing.ts';
import { type ItemEvidence, itemEvidence, openedItem } from './item-evidence.ts';
import { isPhraseOf, type PageOptions, pageOptions } from './page-options.ts';

/** Sizes of the feature vectors. Derived once; the network's input layer uses them. */
export interface FeatureSizes {
  /** Hash buckets for the words of an action and of what it points at. */
  actionBuckets: number;
  /** Hash buckets for the page (the observation's first lines). */
  stateBuckets: number;
}

export const DEFAULT_FEATURE_SIZES: FeatureSizes = { actionBuckets: 128, stateBuckets: 64 };

/** Hand-made scalar features of an action; see {@link actionFeatures}. */
export const ACTION_SCALARS = 39;
/** Hand-made scalar features of a state; see {@link stateFeatures}. */
export const STATE_SCALARS = 9;

/**
 * Where a web candidate's relation scalars ({@link webRelations}) go: web pages have no shop
 * options, items or household memory, so the relations take those slots (14–37); a policy is
 * trained on one env and learns that env's meaning of each slot.
 */
const WEB_SLOTS = 14;
if (WEB_SLOTS + WEB_RELATIONS > 38) throw new Error('web relations overlap the generic scalars');

export const actionFeatureSize = (s: FeatureSizes) => s.actionBuckets + ACTION_SCALARS;
export const stateFeatureSize = (s: FeatureSizes) => s.stateBuckets + STATE_SCALARS;

/** What the policy sees at one decision. */
export interface Decision {
  observation: Observation;
  /** Actions taken so far in the episode, oldest first. */
  history: readonly string[];
  /** The env's reply to each history action (same length), for the episode memory. */
  observations?: readonly Observation[];
}

/**
 * Facts of a decision shared by all its candidates, computed once: the instruction's words,
 * phrases, numbers and budget; the page's option groups; the episode memory; the best instruction
 * coverage any candidate reaches (so a candidate is scored against its rivals, which a per-row
 * network cannot do by itself).
 */
export interface DecisionView {
  instructionWords: string[];
  wanted: Set<string>;
  bigrams: Set<string>;
  /** Numbers the instruction names besides its budget (sizes, counts). */
  numbers: Set<string>;
  budget: number | undefined;
  pageKind: string;
  options: PageOptions;
  memory: EpisodeMemory;
  /** Shops: what the episode has seen of the item open now and which items it left. */
  item: ItemEvidence;
  /** Shares of the instruction's words and word pairs that the open item's pages show. */
  itemCoverage: number;
  itemPairs: number;
  /** Treatments the instruction asks for: `heat` (hot), `cool`, `clean`. */
  treatments: Set<string>;
  /** The task wants two objects. */
  two: boolean;
  bestCoverage: number;
  /** Shops: each listed result's place on its page (0 = first), by lower-cased id. */
  resultRank: Map<string, number>;
  /** Web pages: what each candidate refers to (see `webCandidates`) and the episode's facts. */
  web?: { candidates: Map<string, WebCandidate>; facts: WebFacts };
}

const TREATMENT_CUES: Record<string, string> = {
  hot: 'heat',
  heat: 'heat',
  warm: 'heat',
  cool: 'cool',
  cold: 'cool',
  chilled: 'cool',
  clean: 'clean',
  rinsed: 'clean',
};

/** The shared facts of `decision`, whose candidate actions are `candidates`. */
export function decisionView(decision: Decision, candidates: readonly string[]): DecisionView {
  const { instruction, text } = decision.observation;
  const instructionWords = words(instruction);
  const content = contentWords(instruction);
  const budget = budgetOf(instruction);
  const web = isWebObservation(decision.observation);
  const view: DecisionView = {
    instructionWords,
    wanted: new Set(content),
    bigrams: new Set(content.slice(1).map((w, i) => `${content[i]} ${w}`)),
    numbers: new Set(content.filter((w) => /^\d/.test(w) && Number(w) !== budget)),
    budget,
    pageKind: web
      ? webPageKind(text)
      : words(text.split('\n', 1)[0] ?? '')
          .slice(0, 3)
          .join('_'),
    options: pageOptions(text, instructionWords, decision.history),
    memory: episodeMemory(decision.history, decision.observations ?? []),
    item: itemEvidence(decision.history, decision.observations ?? []),
    itemCoverage: 0,
    itemPairs: 0,
    treatments: new Set(instructionWords.flatMap((w) => TREATMENT_CUES[w] ?? [])),
    two: instructionWords.includes('two'),
    bestCoverage: 0,
    resultRank: new Map(
      (decision.observation.actions ?? [])
        .flatMap((a) => openedItem(a) ?? [])
        .map((id, rank) => [id, rank]),
    ),
    ...(web && {
      web: {
        candidates: new Map(webCandidates(decision.observation).map((c) => [c.action, c])),
        facts: webFacts(decision.observation, decision.history, decision.observations ?? []),
      },
    }),
  };
  if (view.item.current) {
    view.itemCoverage = coverage(view, view.item.seen);
    view.itemPairs = pairCoverage(view, view.item.seen);
  }
  for (const candidate of candidates) {
    if (isActionTemplate(candidate)) continue;
    const context = view.web?.candidates.get(candidate)?.context ?? actionContext(candidate, text);
    if (context) view.bestCoverage = Math.max(view.bestCoverage, coverage(view, context));
  }
  return view;
}

/**
 * Web pages: what lets a policy learn which element or answer a question asks for — the
 * candidate's surroundings (a cell's row header, the words before a number) crossed with the
 * instruction's words, and the answer's shape (number, date, amount, words) crossed with the
 * question's opening ("how many" → a number).
 */
function webCrosses(view: DecisionView, verb: string, label: string, context: string): CrossTokens {
  const around = [...new Set(words(context).filter((w) => !/\d/.test(w)))].slice(0, 10);
  const asked = view.instructionWords.filter((w) => !/\d/.test(w));
  const extra: string[] = [];
  if (verb === 'stop') {
    const shape = /^\$/.test(label)
      ? 'money'
      : /^\d{4}-\d{2}-\d{2}$|^[A-Z][a-z]{2} \d{1,2}, \d{4}$/.test(label)
        ? 'date'
        : /^[\d,.]+$/.test(label)
          ? 'number'
          : label === ''
            ? 'none'
            : 'words';
    const opening = view.instructionWords.slice(0, 2).join('_');
    extra.push(`shape:${shape}|${opening}`, `shape:${shape}|${view.pageKind}`);
  }
  return { prefix: `w:${verb}|`, lefts: around, rights: asked, extra };
}

/** Share of the instruction's content words that `text` contains. */
function coverage(view: DecisionView, text: string): number {
  if (view.wanted.size === 0) return 0;
  const have = new Set(contentWords(text));
  let n = 0;
  for (const w of view.wanted) if (have.has(w)) n++;
  return n / view.wanted.size;
}

/** Share of the instruction's content-word pairs that `text` contains in order. */
function pairCoverage(view: DecisionView, text: string): number {
  if (view.bigrams.size === 0) return 0;
  const have = contentWords(text);
  const pairs = new Set(have.slice(1).map((w, i) => `${have[i]} ${w}`));
  let n = 0;
  for (const b of view.bigrams) if (pairs.has(b)) n++;
  return n / view.bigrams.size;
}

/**
 * Features of the state: the page kind (hashed words of its first two lines, e.g. `Page 1 (Total
 * results: 50)` or `You arrive at countertop 1`), progress, the number of choices, options still
 * to pick, and the memory's summary (holding, a task object located, places explored).
 */
export function stateFeatures(
  decision: Decision,
  sizes: FeatureSizes,
  view: DecisionView = decisionView(decision, []),
): Float32Array {
  const out = new Float32Array(stateFeatureSize(sizes));
  const head = decision.observation.text.split('\n').slice(0, 2).join(' ');
  addHashed(
    out,
    0,
    sizes.stateBuckets,
    words(head).map((w) => `p:${w}`),
    1,
  );
  const s = sizes.stateBuckets;
  const { memory } = view;
  out[s] = Math.min(1, decision.history.length / 20);
  out[s + 1] = Math.min(1, (decision.observation.actions?.length ?? 0) / 50);
  out[s + 2] = decision.history.length === 0 ? 1 : 0;
  out[s + 3] = 1;
  out[s + 4] = Math.min(2, view.options.pending) / 2;
  out[s + 5] = memory.held !== undefined ? 1 : 0;
  out[s + 6] = memory.held !== undefined && isRelevant(view, memory.held) ? 1 : 0;
  out[s + 7] = relevantSeen(view) ? 1 : 0;
  out[s + 8] = Math.min(1, memory.visits.size / 20);
  return out;
}

/**
 * Features of one candidate action.
 *
 * Hashed: the action's verb and label, the words of what it points at (a result's title and price),
 * the verb crossed with the page kind, and the label crossed with the instruction's words (so it
 * can learn that `hot` goes with a microwave).
 *
 * Interaction scalars between the instruction and the action: shares of instruction words and
 * word pairs it covers, coverage against the best rival, numbers and budget, whether the label
 * is a phrase of the instruction (a wanted option), the option group's state, Buy-Now readiness.
 *
 * Item evidence (shops): on an item's pages, the shares of instruction words and word pairs its
 * pages showed so far (page, description, features) and whether details were read, for buying,
 * reading details or leaving; for opening a result, whether it was opened and left before and
 * its place in the search engine's order (in two household slots, which a shop never fills).
 *
 * Memory scalars (household): whether a place is unvisited, holds a task object, is the goal's
 * receptacle; whether an object is a task object, still needs its treatment, is held.
 */
export function actionFeatures(
  decision: Decision,
  action: string,
  sizes: FeatureSizes,
  view: DecisionView = decisionView(decision, [action]),
): Float32Array {
  const out = new Float32Array(actionFeatureSize(sizes));
  const { text } = decision.observation;
  const lower = action.trim().toLowerCase();
  const verb = /^\s*([a-z_]+)/i.exec(action)?.[1]?.toLowerCase() ?? '';
  const labelText = action.replace(/^\s*[a-z_]+\s*\[?/i, '').replace(/\]\s*$/, '');
  const label = words(labelText);
  const web = view.web?.candidates.get(action);
  const context = web?.context ?? (isActionTemplate(action) ? '' : actionContext(action, text));
  addHashed(
    out,
    0,
    sizes.actionBuckets,
    [`v:${verb}`, ...label.map((w) => `a:${w}`), `vp:${verb}|${view.pageKind}`],
    1,
  );
  addHashed(
    out,
    0,
    sizes.actionBuckets,
    words(context).map((w) => `c:${w}`),
    0.5,
  );
  const crosses = label.filter((w) => !/\d/.test(w));
  if (crosses.length <= 6) {
    const cross = { prefix: 'x:', lefts: crosses, rights: [...view.wanted] };
    addHashedCrosses(out, 0, sizes.actionBuckets, cross, 0.5);
  }

  if (view.web) {
    const cross = webCrosses(view, verb, labelText, context);
    addHashedCrosses(out, 0, sizes.actionBuckets, cross, 0.5);
    const progress = webTokens(
      decision.observation,
      decision.history,
      view.pageKind,
      action,
      context,
    );
    addHashed(out, 0, sizes.actionBuckets, progress, 1);
  }

  const s = sizes.actionBuckets;
  // Generic: overlap with the instruction, budget, repetition.
  const offered = contentWords(`${label.join(' ')} ${context}`);
  const matched = offered.filter((w) => view.wanted.has(w)).length;
  const price = priceIn(context);
  const taken = decision.history.filter((a) => a.toLowerCase() === lower).length;
  const cover = coverage(view, `${label.join(' ')} ${context}`);
  out[s] = offered.length ? matched / offered.length : 0;
  out[s + 1] = cover;
  out[s + 2] =
    view.budget !== undefined && price !== undefined ? (price <= view.budget ? 1 : -1) : 0;
  out[s + 3] = Math.min(3, taken) / 3;
  out[s + 4] = decision.history.at(-1)?.toLowerCase() === lower ? 1 : 0;
  out[s + 5] = Math.log1p(offered.length) / 3;
  out[s + 6] = /\d/.test(label.join('')) && label.length === 1 ? 1 : 0;
  out[s + 7] = context.length > 0 ? 1 : 0;
  out[s + 8] = 1;
  // Uncapped, so a greedy policy caught going back and forth sees its features change.
  out[s + 38] = Math.min(1, taken / 10);

  // Interaction: word pairs, rivals, numbers, price against budget.
  out[s + 9] = pairCoverage(view, `${label.join(' ')} ${context}`);
  if (context) {
    out[s + 10] = cover - view.bestCoverage;
    out[s + 11] = cover >= view.bestCoverage && cover > 0 ? 1 : 0;
  }
  const numbers = offered.filter((w) => /^\d/.test(w) && !w.includes('.'));
  out[s + 12] = numbers.length
    ? numbers.filter((n) => view.numbers.has(n)).length / numbers.length
    : 0;
  out[s + 13] =
    view.budget !== undefined && price !== undefined ? Math.min(2, price / view.budget) / 2 : 0;

  // Options and Buy Now.
  const { options } = view;
  const value = labelText.trim().toLowerCase();
  const group = options.groupOf.get(value);
  const isBuy = lower === 'click[buy now]';
  out[s + 14] = label.length > 0 && isPhraseOf(label, view.instructionWords) ? 1 : 0;
  if (group !== undefined) {
    out[s + 15] = 1;
    out[s + 16] = options.wanted.get(group)?.includes(value) ? 1 : 0;
    out[s + 17] = options.selected.has(value) ? 1 : 0;
    out[s + 18] = options.selectedGroups.has(group) ? 1 : 0;
    out[s + 19] = options.wanted.has(group) && !options.wanted.get(group)?.includes(value) ? 1 : 0;
  }
  if (isBuy) {
    out[s + 20] = options.pending === 0 ? 1 : 0;
    out[s + 21] = Math.min(2, options.pending) / 2;
    out[s + 30] = options.mismatched > 0 ? 1 : 0;
  }
  if (lower === 'click[< prev]' || lower === 'click[back to search]') {
    out[s + 31] = options.mismatched > 0 ? 1 : 0;
  }

  // Opening items to check them: what the open item's pages showed, items already left.
  const { item } = view;
  const opens = openedItem(lower);
  const leaves = lower === 'click[< prev]' || lower === 'click[back to search]';
  const details = lower === 'click[description]' || lower === 'click[features]';
  if (opens) {
    out[s + 32] = item.left.has(opens) ? 1 : 0;
    // The search engine's order: its first result fits the query best more often than not. A
    // shop has no household memory, so the rank takes two of its slots (22–23).
    const rank = view.resultRank.get(opens);
    if (rank !== undefined) {
      out[s + 22] = 1 - Math.min(10, rank) / 10;
      out[s + 23] = rank === 0 ? 1 : 0;
    }
  }
  if (item.current && (isBuy || leaves || details)) {
    out[s + 33] = view.itemCoverage;
    out[s + 34] = view.itemPairs;
    out[s + 35] = item.details ? 1 : 0;
  }
  if (opens || isBuy || leaves) out[s + 36] = Math.min(3, item.left.size) / 3;
  if (details) out[s + 37] = item.details ? 1 : -1;

  // Household memory.
  const { memory } = view;
  const command = parseCommand(lower);
  if (command?.verb === 'go to') {
    const place = command.target;
    out[s + 22] = memory.visits.has(place) ? 0 : 1;
    out[s + 23] = [...memory.seenAt].some(
      ([object, at]) => at === place && isRelevant(view, object) && !memory.placed.has(object),
    )
      ? 1
      : 0;
    out[s + 24] = view.wanted.has(kindOf(place)) ? 1 : 0;
    out[s + 25] = place === memory.location ? 1 : 0;
  } else if (command?.verb === 'open') {
    out[s + 22] = memory.opened.has(command.target) ? 0 : 1;
  } else if (command?.verb === 'take') {
    out[s + 26] = isRelevant(view, command.object) ? 1 : -1;
  } else if (command?.verb === 'move') {
    const { object, target } = command;
    const done = [...view.treatments].every((t) => memory.treated.has(`${t}:${object}`));
    out[s + 26] = isRelevant(view, object) ? 1 : -1;
    out[s + 27] = view.wanted.has(kindOf(target)) ? 1 : -1;
    out[s + 28] = done ? 1 : -1;
  } else if (command?.verb === 'heat' || command?.verb === 'cool' || command?.verb === 'clean') {
    const wantedHere = view.treatments.has(command.verb) && isRelevant(view, command.object);
    out[s + 29] = wantedHere && !memory.treated.has(`${command.verb}:${command.object}`) ? 1 : -1;
  } else if (command?.verb === 'use') {
    out[s + 24] = view.wanted.has(kindOf(command.target)) ? 1 : 0;
    out[s + 26] = memory.held !== undefined && isRelevant(view, memory.held) ? 1 : -1;
  }
  if (view.web && web) out.set(webRelations(view.web.facts, web), s + WEB_SLOTS);
  return out;
}

/** An object of the kind the instruction names (`plate 1` for "put a plate in …"). */
function isRelevant(view: DecisionView, object: string): boolean {
  return view.wanted.has(kindOf(object));
}

/** A task object was seen somewhere and is neither held nor already placed. */
function relevantSeen(view: DecisionView): boolean {
  for (const object of view.memory.seenAt.keys())
    if (isRelevant(view, object) && !view.memory.placed.has(object)) return true;
  return false;
}
