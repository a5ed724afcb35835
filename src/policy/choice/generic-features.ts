import { contentWords, words } from '../../core/text.ts';
import { isActionTemplate } from '../../core/types.ts';
import { fillTemplate } from '../../envs/actions.ts';
import type { ParsedAction } from './action-template.ts';
import { coverage } from './coverage.ts';
import type {
  ChoiceFeatures,
  DecisionFeatures,
  FamilyFeatures,
  HashTokens,
} from './feature-set.ts';
import type { FeatureSizes } from './features.ts';
import {
  type CandidateFacts,
  earlierOf,
  type GenericView,
  genericView,
  type SlotFacts,
  shapeOf,
} from './generic-view.ts';
import { addHashed, addHashedCrosses } from './hashing.ts';
import { holdsPhrase } from './observation-records.ts';
import { slotValues } from './slot-values.ts';

/** The generic features' sizes: a whole observation needs more buckets than a page's head. */
export const GENERIC_FEATURE_SIZES: FeatureSizes = { actionBuckets: 256, stateBuckets: 128 };

/** The action scalars, by name (see {@link genericFeatures}). */
const A = {
  bias: 0,
  slots: 1,
  filled: 2,
  inInstruction: 3,
  allInInstruction: 4,
  instructionShare: 5,
  inObservation: 6,
  inEarlier: 7,
  usedBefore: 8,
  cover: 9,
  coverGap: 10,
  coverBest: 11,
  observationCover: 12,
  keyAsked: 13,
  cue: 14,
  coherent: 15,
  taken: 16,
  takenOften: 17,
  repeatsLast: 18,
  noEffect: 19,
  templateUsed: 20,
  templateWasLast: 21,
  templateShare: 22,
  rank: 23,
  number: 24,
  id: 25,
  counted: 26,
  instructionOnly: 27,
  newlyShown: 28,
  alreadySet: 29,
  unseen: 30,
  ownCover: 31,
  ownGap: 32,
  ownBest: 33,
  replyCover: 34,
  replyGap: 35,
  replyBest: 36,
  cueOther: 37,
  echoed: 38,
  cheapestOpen: 39,
  cheapestBestOpen: 40,
} as const;
/** Scalars per action in the generic features (before any family's block). */
export const GENERIC_ACTION_SCALARS = 41;

/** The state scalars, by name. */
const S = {
  bias: 0,
  progress: 1,
  first: 2,
  choices: 3,
  unchanged: 4,
  observationCover: 5,
  episodeCover: 6,
  entitiesUsed: 7,
  allEntitiesUsed: 8,
  pages: 9,
  revisit: 10,
} as const;
/** Scalars per state in the generic features (before any family's block). */
export const GENERIC_STATE_SCALARS = 11;

/** How the generic features fill templates, and the families they carry. */
export interface GenericFeatureOptions {
  sizes?: FeatureSizes;
  /** Values proposed per `<placeholder>` template. Default 30. */
  slotValues?: number;
  /** Family features appended after the generic ones, each in a block of its own. */
  families?: readonly FamilyFeatures[];
}

/**
 * Features for any env that lists its actions, naming no env family: the policy sees the whole
 * observation and each action as a template with slot values, related to the instruction and to
 * the episode so far.
 *
 * Candidates: the admissible actions, each `<placeholder>` template filled with values from the
 * instruction (names, dates, numbers, ids, quoted text, a few queries) and from the episode's
 * observations (a JSON result's values, a page's labels, names and numbers; counts of the
 * question's words among the records read), so `find_customer[<name>]` can take the name in the
 * ticket and `answer[<text>]` a status read from a tool result.
 *
 * State: hashed words of the whole observation (numbers and ids as their shape), its kind (a
 * JSON result's keys, a page's first line), the last action's template, the question's opening
 * and the instruction's words; progress, whether the last action changed anything, how much of
 * the instruction the observation and the episode show, how many of its entities were used.
 *
 * Action: hashed template, verb, slot words and shapes, the template crossed with the page kind,
 * the last template, the question and the instruction's words, the slot's surroundings and field;
 * scalars (named in `A`) relating each slot value to the instruction (named in it; the word next
 * to it names the action's field, or another field of the page) and to the episode (shown now,
 * shown before, used before; how much of the instruction the records showing it, the records
 * about it and the reply to the last action on it cover, each against the best rival of the same
 * template; its field named in the instruction; its place in its list; the field already holds
 * it; its words elsewhere on the page; the cheapest untried rival, overall and among the best
 * matches), and the action to the history (taken before, just taken, taken without effect, its
 * template's use).
 */
export function genericFeatures(options: GenericFeatureOptions = {}): ChoiceFeatures {
  const sizes = options.sizes ?? GENERIC_FEATURE_SIZES;
  const families = options.families ?? [];
  const familyActions = families.reduce((n, f) => n + f.actionScalars, 0);
  const familyStates = families.reduce((n, f) => n + f.stateScalars, 0);
  const actionSize = sizes.actionBuckets + GENERIC_ACTION_SCALARS + familyActions;
  const stateSize = sizes.stateBuckets + GENERIC_STATE_SCALARS + familyStates;
  const maxValues = options.slotValues ?? 30;
  return {
    name: 'generic',
    actionSize,
    stateSize,
    candidates({ observation, observations = [] }) {
      const earlier = earlierOf(observation, observations);
      const values = slotValues(observation, earlier, maxValues);
      return (observation.actions ?? []).flatMap((a) =>
        isActionTemplate(a) ? values.map((v) => fillTemplate(a, v.value)) : [a],
      );
    },
    featurize(decision, candidates): DecisionFeatures {
      const view = genericView(decision, candidates);
      const familyViews = families.map((f) => f.view(decision, candidates));
      const actions = new Float32Array(candidates.length * actionSize);
      candidates.forEach((candidate, i) => {
        const out = actions.subarray(i * actionSize, (i + 1) * actionSize);
        genericAction(view, candidate, sizes, out);
        const hash: HashTokens = (tokens, weight) => {
          if ('prefix' in tokens) addHashedCrosses(out, 0, sizes.actionBuckets, tokens, weight);
          else addHashed(out, 0, sizes.actionBuckets, tokens, weight);
        };
        let at = sizes.actionBuckets + GENERIC_ACTION_SCALARS;
        families.forEach((family, f) => {
          const block = out.subarray(at, at + family.actionScalars);
          family.action(familyViews[f], decision, candidate, block, hash);
          at += family.actionScalars;
        });
      });
      const state = new Float32Array(stateSize);
      genericState(view, sizes, state);
      let at = sizes.stateBuckets + GENERIC_STATE_SCALARS;
      families.forEach((family, f) => {
        family.state(familyViews[f], decision, state.subarray(at, at + family.stateScalars));
        at += family.stateScalars;
      });
      return { actions, state };
    },
  };
}

function genericAction(
  view: GenericView,
  action: string,
  sizes: FeatureSizes,
  out: Float32Array,
): void {
  const facts = view.candidates.get(action) as CandidateFacts;
  const { parsed, slots } = facts;
  const { template } = parsed;
  const buckets = sizes.actionBuckets;
  const slotWords = parsed.slots.flatMap((slot) => words(slot.value).filter((w) => !/\d/.test(w)));
  const identity = [
    `t:${template}`,
    `v:${parsed.verb}`,
    `tp:${template}|${view.pageKind}`,
    `tl:${template}|${view.lastTemplate}`,
    `tq:${template}|${view.question}`,
    ...slotWords.slice(0, 8).map((w) => `a:${w}`),
    ...slots.flatMap((s) => [
      `sh:${template}|${s.shape}`,
      `src:${template}|${s.source}`,
      `sq:${s.source}|${s.shape}|${view.question}`,
      ...(s.key ? [`k:${template}|${s.key}`] : []),
      ...(parsed.placeholder ? [`ph:${parsed.placeholder}|${s.shape}|${s.source}`] : []),
    ]),
  ];
  addHashed(out, 0, buckets, identity, 1);
  addHashedCrosses(
    out,
    0,
    buckets,
    { prefix: 'ti:', lefts: [template], rights: [...view.asked] },
    0.5,
  );
  if (slotWords.length > 0 && slotWords.length <= 6) {
    const cross = { prefix: 'x:', lefts: slotWords, rights: [...view.asked] };
    addHashedCrosses(out, 0, buckets, cross, 0.5);
  }
  const around = [
    ...new Set(slots.flatMap((s) => words(s.around).filter((w) => !/\d/.test(w)))),
  ].slice(0, 12);
  if (around.length > 0) {
    addHashedCrosses(out, 0, buckets, { prefix: 'tc:', lefts: [template], rights: around }, 0.5);
  }
  const keys = slots.map((s) => s.key).filter((k) => k.length > 0);
  const counted = parsed.placeholder
    ? parsed.slots.flatMap((slot) => view.counts.get(slot.value) ?? [])
    : [];
  const asked = view.questionWords;
  if (keys.length + counted.length > 0 && asked.length > 0) {
    const cross = {
      prefix: 'kq:',
      lefts: [...keys, ...counted.map((w) => `#${w}`)],
      rights: asked,
    };
    addHashedCrosses(out, 0, buckets, cross, 0.5);
  }

  const s = buckets;
  const lower = action.trim().toLowerCase();
  const any = (f: (x: SlotFacts) => boolean) => (slots.some(f) ? 1 : 0);
  const taken = view.taken.get(lower) ?? 0;
  const best = view.bestCover.get(template) ?? 0;
  out[s + A.bias] = 1;
  out[s + A.slots] = Math.min(3, slots.length) / 3;
  out[s + A.filled] = parsed.placeholder !== undefined ? 1 : 0;
  out[s + A.inInstruction] = any((x) => x.inInstruction);
  out[s + A.allInInstruction] = slots.length > 0 && slots.every((x) => x.inInstruction) ? 1 : 0;
  out[s + A.instructionShare] = Math.max(0, ...slots.map((x) => x.instructionShare));
  out[s + A.inObservation] = any((x) => x.inObservation);
  out[s + A.inEarlier] = any((x) => x.inEarlier);
  out[s + A.usedBefore] = any((x) => x.usedBefore);
  out[s + A.cover] = facts.cover;
  out[s + A.coverGap] = facts.cover - best;
  out[s + A.coverBest] = facts.cover >= best && facts.cover > 0 ? 1 : 0;
  out[s + A.observationCover] = Math.max(0, ...slots.map((x) => x.observationCover));
  out[s + A.keyAsked] = any((x) => x.key.length > 0 && words(x.key).some((w) => view.asked.has(w)));
  out[s + A.cue] = any((x) => x.cue);
  out[s + A.coherent] = coherent(parsed, slots) ? 1 : 0;
  out[s + A.taken] = Math.min(3, taken) / 3;
  out[s + A.takenOften] = Math.min(1, taken / 10);
  out[s + A.repeatsLast] = view.decision.history.at(-1)?.trim().toLowerCase() === lower ? 1 : 0;
  out[s + A.noEffect] = view.noEffect.has(lower) ? 1 : 0;
  out[s + A.templateUsed] = Math.min(3, view.templateUses.get(template) ?? 0) / 3;
  out[s + A.templateWasLast] = view.lastTemplate === template ? 1 : 0;
  out[s + A.templateShare] = view.templateShare.get(template) ?? 0;
  const rank = slots.find((x) => x.rank !== undefined)?.rank;
  out[s + A.rank] = rank === undefined ? 0 : 1 - Math.min(10, rank) / 10;
  out[s + A.number] = any((x) => /^9(?:\.9)?$|^\$9/.test(x.shape));
  out[s + A.id] = any((x) => /^A-?9$|^a-?9$/.test(x.shape));
  out[s + A.counted] = any((x) => x.source === 'count');
  out[s + A.instructionOnly] = any((x) => x.inInstruction && !x.inObservation && !x.inEarlier);
  out[s + A.newlyShown] = any((x) => x.inObservation && !x.inEarlier);
  out[s + A.alreadySet] = any((x) => x.alreadySet);
  out[s + A.unseen] = slots.length > 0 && slots.every((x) => x.source === 'none') ? 1 : 0;
  const bestOwn = view.bestOwnCover.get(template) ?? 0;
  out[s + A.ownCover] = facts.ownCover;
  out[s + A.ownGap] = facts.ownCover - bestOwn;
  out[s + A.ownBest] = facts.ownCover >= bestOwn && facts.ownCover > 0 ? 1 : 0;
  const bestReply = view.bestReplyCover.get(template) ?? 0;
  out[s + A.replyCover] = facts.replyCover;
  out[s + A.replyGap] = facts.replyCover - bestReply;
  out[s + A.replyBest] = facts.replyCover >= bestReply && facts.replyCover > 0 ? 1 : 0;
  out[s + A.cueOther] = any((x) => x.cueOther);
  out[s + A.echoed] = any((x) => x.echoed);
  out[s + A.cheapestOpen] = facts.cheapestOpen ? 1 : 0;
  out[s + A.cheapestBestOpen] = facts.cheapestBestOpen ? 1 : 0;
}

/**
 * One slot's value shows in the current observation next to another slot's words: `unlock birch
 * door with pewter key` where the page says `birch door (pewter lock, …)`.
 */
function coherent(parsed: ParsedAction, slots: readonly SlotFacts[]): boolean {
  if (slots.length < 2) return false;
  return slots.some((facts, i) => {
    if (!facts.around) return false;
    const own = new Set(contentWords(parsed.slots[i]?.value ?? ''));
    return parsed.slots.some(
      (other, j) =>
        j !== i &&
        contentWords(other.value).some((w) => !own.has(w) && holdsPhrase(facts.around, w)),
    );
  });
}

function genericState(view: GenericView, sizes: FeatureSizes, out: Float32Array): void {
  const { decision } = view;
  const { observation, history } = decision;
  const buckets = sizes.stateBuckets;
  const seen = words(observation.text).map((w) => (/\d/.test(w) ? `#${shapeOf(w)}` : `o:${w}`));
  addHashed(out, 0, buckets, seen, 1);
  const keys = [...new Set(view.current.flatMap((r) => r.fields.map((f) => `j:${f.key}`)))];
  addHashed(
    out,
    0,
    buckets,
    [`pk:${view.pageKind}`, `lt:${view.lastTemplate}`, `q:${view.question}`, ...keys],
    1,
  );
  addHashed(
    out,
    0,
    buckets,
    [...view.asked].map((w) => `i:${w}`),
    0.5,
  );
  const s = buckets;
  const observations = decision.observations ?? [];
  const episodeText = [...observations.map((o) => o.text), observation.text].join('\n');
  const used = view.entities.filter(
    (e) => view.used.has(e) || [...view.used].some((u) => holdsPhrase(u, e)),
  );
  out[s + S.bias] = 1;
  out[s + S.progress] = Math.min(1, history.length / 20);
  out[s + S.first] = history.length === 0 ? 1 : 0;
  out[s + S.choices] = Math.min(1, (observation.actions?.length ?? 0) / 50);
  const previous = observations.at(-2)?.text;
  out[s + S.unchanged] = previous !== undefined && previous === observation.text ? 1 : 0;
  out[s + S.observationCover] = coverage(view.asked, observation.text);
  out[s + S.episodeCover] = coverage(view.asked, episodeText);
  out[s + S.entitiesUsed] = view.entities.length ? used.length / view.entities.length : 0;
  out[s + S.allEntitiesUsed] =
    view.entities.length > 0 && used.length === view.entities.length ? 1 : 0;
  out[s + S.pages] = Math.min(1, new Set(observations.map((o) => o.text)).size / 20);
  const visits = observations.slice(0, -1).filter((o) => o.text === observation.text).length;
  out[s + S.revisit] = Math.min(3, visits) / 3;
}
