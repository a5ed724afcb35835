import { contentWords, words } from '../../core/text.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { stem } from '../web/web-relations.ts';
import { type ParsedAction, parseAction } from './action-template.ts';
import { coverage } from './coverage.ts';
import type { Decision } from './feature-set.ts';
import { holdsPhrase, type ObservationRecord, recordsOf } from './observation-records.ts';
import { countedValues, instructionEntities, questionOf, type SlotSource } from './slot-values.ts';

/**
 * What the generic features know of a decision: the instruction, the current and earlier
 * observations as records, the history read as templates and slot values, and for each candidate
 * what its slot values are to the instruction and the episode (named where, shown where, under
 * which field, how much of the instruction the records about them cover, against their rivals).
 * No env family is named: only the instruction, the observations and the actions are read.
 */

/** What one slot value is to the instruction and the episode. */
export interface SlotFacts {
  inInstruction: boolean;
  instructionShare: number;
  inObservation: boolean;
  inEarlier: boolean;
  usedBefore: boolean;
  /**
   * Best share of the instruction's words among the records that show the value, the most
   * specific one of each observation (a customer's object rather than the list of them).
   */
  cover: number;
  /**
   * The same among the records about the value (that name it first: an order's object for its
   * id, a result's line for its label), which a list of ids in another record does not reach.
   */
  ownCover: number;
  observationCover: number;
  /** The field it is shown under, and its place in its list, where the episode shows it. */
  key: string;
  rank: number | undefined;
  /** The smallest record of the current observation that shows it ('' if none). */
  around: string;
  /** The instruction's words next to it name the action's field (`phone 555-…`, `2 nights`). */
  cue: boolean;
  /** …or another field the page shows (`3 guests` for `set[nights=3]`). */
  cueOther: boolean;
  /** Share of the instruction's words in the reply to the last action that carried the value. */
  replyCover: number;
  /** A word of the value shows in another part of the current observation (`pewter` key, lock). */
  echoed: boolean;
  /** The first amount (`$172`) of the record about the value. */
  amount: number | undefined;
  /** The current observation shows it as the value of the action's field. */
  alreadySet: boolean;
  source: SlotSource | 'earlier' | 'none';
  shape: string;
}

/** An action's template, slots and their facts. */
export interface CandidateFacts {
  parsed: ParsedAction;
  slots: SlotFacts[];
  cover: number;
  ownCover: number;
  replyCover: number;
  amount: number | undefined;
  /** Taken before in the episode. */
  taken: boolean;
  /** The cheapest of its template's untried rivals; of those that match the instruction best. */
  cheapestOpen: boolean;
  cheapestBestOpen: boolean;
}

/** A decision's facts, shared by its candidates. */
export interface GenericView {
  decision: Decision;
  instruction: string;
  asked: Set<string>;
  /** The question's opening words (`how_many`, `what_is`). */
  question: string;
  questionWords: readonly string[];
  entities: string[];
  current: ObservationRecord[];
  earlier: ObservationRecord[];
  /** The earlier observations' records, one list per observation. */
  earlierByObservation: ObservationRecord[][];
  recordCover: Map<ObservationRecord, number>;
  used: Set<string>;
  taken: Map<string, number>;
  noEffect: Set<string>;
  templateUses: Map<string, number>;
  lastTemplate: string;
  pageKind: string;
  counts: Map<string, string[]>;
  candidates: Map<string, CandidateFacts>;
  bestCover: Map<string, number>;
  bestOwnCover: Map<string, number>;
  bestReplyCover: Map<string, number>;
  /** The reply to the last action that carried each slot value (lower-cased). */
  replies: Map<string, string>;
  /** Field names the current observation shows. */
  pageFields: Set<string>;
  templateShare: Map<string, number>;
}

/** The observations of the episode before the current one (the last reply is the current one). */
export function earlierOf(
  observation: Observation,
  observations: readonly Observation[],
): Observation[] {
  const before = observations.slice(0, -1);
  const last = observations.at(-1);
  if (last && last.text !== observation.text) before.push(last);
  return before;
}

/** The facts of `decision` and of each of its `candidates`. */
export function genericView(decision: Decision, candidates: readonly string[]): GenericView {
  const { observation, history } = decision;
  const observations = decision.observations ?? [];
  const earlierObservations = earlierOf(observation, observations);
  const templates = (observation.actions ?? []).filter(isActionTemplate);
  const current = recordsOf(observation.text);
  const earlierByObservation = earlierObservations.map((o) => recordsOf(o.text));
  const earlier = earlierByObservation.flat();
  const asked = new Set(contentWords(observation.instruction));
  const recordCover = new Map<ObservationRecord, number>();
  for (const record of [...current, ...earlier])
    if (!recordCover.has(record)) recordCover.set(record, coverage(asked, record.text));
  const parsedHistory = history.map((a) => parseAction(a, templates));
  const used = new Set(parsedHistory.flatMap((p) => p.slots.map((s) => s.value.toLowerCase())));
  const taken = new Map<string, number>();
  const noEffect = new Set<string>();
  const templateUses = new Map<string, number>();
  history.forEach((action, i) => {
    const key = action.trim().toLowerCase();
    taken.set(key, (taken.get(key) ?? 0) + 1);
    const template = (parsedHistory[i] as ParsedAction).template;
    templateUses.set(template, (templateUses.get(template) ?? 0) + 1);
    const reply = observations[i]?.text;
    if (i > 0 && reply !== undefined && reply === observations[i - 1]?.text) noEffect.add(key);
  });
  const replies = new Map<string, string>();
  parsedHistory.forEach((parsed, i) => {
    const reply = observations[i]?.text;
    if (reply === undefined) return;
    for (const slot of parsed.slots) replies.set(slot.value.toLowerCase(), reply);
  });
  const questionWords = words(questionOf(observation.instruction));
  const view: GenericView = {
    decision,
    instruction: observation.instruction.toLowerCase(),
    asked,
    question: questionWords.slice(0, 2).join('_'),
    questionWords: contentWords(questionOf(observation.instruction)),
    entities: instructionEntities(observation.instruction).map((e) => e.toLowerCase()),
    current,
    earlier,
    earlierByObservation,
    recordCover,
    used,
    taken,
    noEffect,
    templateUses,
    lastTemplate: parsedHistory.at(-1)?.template ?? 'start',
    pageKind: pageKindOf(observation.text),
    counts: countedValues(observation.instruction, [...earlierObservations, observation]),
    candidates: new Map(),
    bestCover: new Map(),
    bestOwnCover: new Map(),
    bestReplyCover: new Map(),
    replies,
    pageFields: new Set(current.flatMap((r) => r.fields.map((f) => stem(f.key)))),
    templateShare: new Map(),
  };
  for (const candidate of candidates) {
    const parsed = parseAction(candidate, templates);
    const templateWords = new Set(words(parsed.template).map(stem));
    const slots = parsed.slots.map((s) =>
      slotFacts(view, s.value, s.field, templateWords, parsed.placeholder !== undefined),
    );
    const cover = Math.max(0, ...slots.map((s) => s.cover));
    const ownCover = Math.max(0, ...slots.map((s) => s.ownCover));
    const replyCover = Math.max(0, ...slots.map((s) => s.replyCover));
    view.candidates.set(candidate, {
      parsed,
      slots,
      cover,
      ownCover,
      replyCover,
      amount: slots.find((s) => s.amount !== undefined)?.amount,
      taken: (view.taken.get(candidate.trim().toLowerCase()) ?? 0) > 0,
      cheapestOpen: false,
      cheapestBestOpen: false,
    });
    const { template } = parsed;
    view.bestCover.set(template, Math.max(view.bestCover.get(template) ?? 0, cover));
    view.bestOwnCover.set(template, Math.max(view.bestOwnCover.get(template) ?? 0, ownCover));
    view.bestReplyCover.set(template, Math.max(view.bestReplyCover.get(template) ?? 0, replyCover));
    view.templateShare.set(parsed.template, (view.templateShare.get(parsed.template) ?? 0) + 1);
  }
  for (const [template, n] of view.templateShare)
    view.templateShare.set(template, n / Math.max(1, candidates.length));
  markCheapest(view);
  return view;
}

/**
 * Marks, per template, the untried candidate with the smallest amount, and the same among the
 * untried ones whose records match the instruction best: "the cheapest room of the kind asked
 * for that was not opened yet", a choice no per-candidate feature can make alone.
 */
function markCheapest(view: GenericView): void {
  const open = new Map<string, CandidateFacts[]>();
  for (const facts of view.candidates.values()) {
    if (facts.taken || facts.amount === undefined) continue;
    open.set(facts.parsed.template, [...(open.get(facts.parsed.template) ?? []), facts]);
  }
  const cheapest = (list: readonly CandidateFacts[]) =>
    list.reduce((a, b) => ((b.amount as number) < (a.amount as number) ? b : a));
  for (const list of open.values()) {
    cheapest(list).cheapestOpen = true;
    const best = Math.max(...list.map((f) => f.ownCover));
    cheapest(list.filter((f) => f.ownCover === best)).cheapestBestOpen = true;
  }
}

function slotFacts(
  view: GenericView,
  value: string,
  field: string | undefined,
  templateWords: ReadonlySet<string>,
  filled: boolean,
): SlotFacts {
  const lower = value.toLowerCase();
  const showing = (records: readonly ObservationRecord[]) =>
    records.filter((r) => holdsPhrase(r.text, lower));
  const now = showing(view.current);
  const before = view.earlierByObservation.flatMap(showing);
  const coverOf = (records: readonly ObservationRecord[]) =>
    Math.max(0, ...records.map((r) => view.recordCover.get(r) ?? 0));
  const named =
    firstField(view.current, lower, (a, b) => a === b) ??
    firstField(view.earlier, lower, (a, b) => a === b) ??
    firstField(view.current, lower, (a, b) => holdsPhrase(a, b)) ??
    firstField(view.earlier, lower, (a, b) => holdsPhrase(a, b));
  const inInstruction = holdsPhrase(view.instruction, lower);
  const valueWords = contentWords(value);
  const around = smallest(now)?.text;
  const source: SlotFacts['source'] = inInstruction
    ? 'instruction'
    : now.length > 0
      ? 'observation'
      : before.length > 0
        ? 'earlier'
        : filled && view.counts.has(value)
          ? 'count'
          : 'none';
  return {
    inInstruction,
    instructionShare: valueWords.length
      ? valueWords.filter((w) => view.asked.has(w)).length / valueWords.length
      : 0,
    inObservation: now.length > 0,
    inEarlier: before.length > 0,
    usedBefore: view.used.has(lower),
    cover: coverOf(
      [now, ...view.earlierByObservation.map(showing)].flatMap((shown) => smallest(shown) ?? []),
    ),
    ownCover: coverOf(
      [...now, ...before].filter((r) => r.fields[0]?.value.toLowerCase() === lower),
    ),
    observationCover: coverOf(now),
    key: named?.key ?? '',
    rank: named?.rank,
    around: around ?? '',
    cue: inInstruction && cueNext(view.instruction, lower, (w) => templateWords.has(w)),
    cueOther:
      inInstruction &&
      cueNext(view.instruction, lower, (w) => !templateWords.has(w) && view.pageFields.has(w)),
    replyCover: coverage(view.asked, view.replies.get(lower) ?? ''),
    echoed: valueWords.some((w) =>
      view.current.some((r) => !holdsPhrase(r.text, lower) && holdsPhrase(r.text, w)),
    ),
    amount: amountOf(
      [...now, ...before].find((r) => r.fields[0]?.value.toLowerCase() === lower) ?? smallest(now),
    ),
    alreadySet:
      field !== undefined &&
      view.current.some((r) =>
        r.fields.some((f) => f.key === field && f.value.toLowerCase() === lower),
      ),
    source,
    shape: shapeOf(value),
  };
}

/** The record with the shortest text: the most specific one that shows a value. */
function smallest(records: readonly ObservationRecord[]): ObservationRecord | undefined {
  return records.reduce<ObservationRecord | undefined>(
    (best, r) => (best === undefined || r.text.length < best.text.length ? r : best),
    undefined,
  );
}

/** The first field of `records` whose value matches `value` (lower-cased) by `same`. */
function firstField(
  records: readonly ObservationRecord[],
  value: string,
  same: (fieldValue: string, value: string) => boolean,
): { key: string; rank: number } | undefined {
  for (const record of records)
    for (const field of record.fields)
      if (same(field.value.toLowerCase(), value)) return { key: field.key, rank: field.rank };
  return undefined;
}

/**
 * Whether the word before or after an occurrence of `value` in the instruction (stemmed) passes
 * `names`: the instruction names the field a value is for next to it.
 */
function cueNext(instruction: string, value: string, names: (stem: string) => boolean): boolean {
  for (let at = instruction.indexOf(value); at >= 0; at = instruction.indexOf(value, at + 1)) {
    const before = instruction.slice(0, at);
    const after = instruction.slice(at + value.length);
    // A comma or a full stop between them ends the phrase: `3 guests, 2 nights`.
    const near = [
      ...(/[,.;:!?]\s*$/.test(before) ? [] : words(before).slice(-1)),
      ...(/^\s*[,.;:!?]/.test(after) ? [] : words(after).slice(0, 1)),
    ];
    if (near.some((w) => names(stem(w)))) return true;
  }
  return false;
}

/** The first amount of money a record shows (`$172` → 172). */
function amountOf(record: ObservationRecord | undefined): number | undefined {
  const money = record?.fields.find((f) => /^\$\d/.test(f.value));
  return money ? Number(money.value.slice(1).replaceAll(',', '')) : undefined;
}

/** A value's shape: letters, digits and the rest as classes (`O-2217` → `A-9`, `May 7` → `Aa 9`). */
export function shapeOf(value: string): string {
  return value
    .trim()
    .replace(/[A-Z]+/g, 'A')
    .replace(/[a-z]+/g, 'a')
    .replace(/\d+/g, '9')
    .replace(/\s+/g, ' ')
    .slice(0, 12);
}

/** An observation's kind: a JSON result's top-level keys, or a page's first line without numbers. */
export function pageKindOf(text: string): string {
  if (/^\s*[[{]/.test(text)) {
    try {
      const data: unknown = JSON.parse(text);
      if (Array.isArray(data)) return 'json:list';
      if (data !== null && typeof data === 'object')
        return `json:${Object.keys(data).sort().join('|')}`;
    } catch {
      // Not JSON after all: a page that opens with a bracket.
    }
  }
  return words(text.split('\n', 1)[0] ?? '')
    .filter((w) => !/\d/.test(w))
    .slice(0, 4)
    .join('_');
}
