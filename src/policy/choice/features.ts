import { actionContext, budgetOf, contentWords, priceIn, words } from '../../core/text.ts';
import { isActionTemplate } from '../../core/types.ts';
import { fillTemplate } from '../../envs/actions.ts';
import { bigramsOf, coverage, pairCoverage } from './coverage.ts';
import type { ChoiceFeatures, Decision, HashTokens, PageFamily } from './feature-set.ts';
import { addHashed, addHashedCrosses } from './hashing.ts';
import { householdFeatures } from './household-features.ts';
import { proposeQueries } from './query-proposer.ts';
import { shopFeatures } from './shop-features.ts';
import { webFamily } from './web-family.ts';

/** Sizes of the feature vectors. Derived once; the network's input layer uses them. */
export interface FeatureSizes {
  /** Hash buckets for the words of an action and of what it points at. */
  actionBuckets: number;
  /** Hash buckets for the page (the page features: its first lines; the generic ones: all of it). */
  stateBuckets: number;
}

/** The page features' sizes. */
export const DEFAULT_FEATURE_SIZES: FeatureSizes = { actionBuckets: 128, stateBuckets: 64 };

/** Hand-made scalar features of an action; see {@link actionFeatures}. */
export const ACTION_SCALARS = 39;
/** Hand-made scalar features of a state; see {@link stateFeatures}. */
export const STATE_SCALARS = 9;

/** Where the families' action block starts among the action scalars, and its width. */
const FAMILY_ACTION_SLOT = 14;
const FAMILY_ACTION_WIDTH = 24;
/** Where the families' state block starts among the state scalars, and its width. */
const FAMILY_STATE_SLOT = 4;
const FAMILY_STATE_WIDTH = 5;

/** Size of an action's page-feature vector. */
export const actionFeatureSize = (s: FeatureSizes) => s.actionBuckets + ACTION_SCALARS;
/** Size of a state's page-feature vector. */
export const stateFeatureSize = (s: FeatureSizes) => s.stateBuckets + STATE_SCALARS;

/**
 * The page features' families: the shop, the household and the web. They share one block of the
 * vectors, and each writes only on its own pages (the shop's rank and the household's places
 * share slots; the web's relations overwrite the whole block), so a policy trained on one
 * family learns that family's meaning of each slot.
 */
const PAGE_FAMILIES: readonly PageFamily[] = [
  shopFeatures,
  householdFeatures,
  webFamily,
] as PageFamily[];
for (const family of PAGE_FAMILIES) {
  if (family.actionScalars > FAMILY_ACTION_WIDTH || family.stateScalars > FAMILY_STATE_WIDTH)
    throw new Error(`the ${family.name} features overflow the page features' family block`);
}

/**
 * Facts of a decision shared by all its candidates, computed once: the instruction's words,
 * phrases, numbers and budget; the page's kind; each family's view; the best instruction
 * coverage any candidate reaches (so a candidate is scored against its rivals, which a per-row
 * network cannot do by itself).
 */
export interface DecisionView {
  instructionWords: readonly string[];
  wanted: Set<string>;
  bigrams: Set<string>;
  /** Numbers the instruction names besides its budget (sizes, counts). */
  numbers: Set<string>;
  budget: number | undefined;
  pageKind: string;
  bestCoverage: number;
  /** Each page family's view, in the families' order. */
  families: unknown[];
}

/** The shared facts of `decision`, whose candidate actions are `candidates`. */
export function decisionView(decision: Decision, candidates: readonly string[]): DecisionView {
  const { instruction, text } = decision.observation;
  const content = contentWords(instruction);
  const budget = budgetOf(instruction);
  const pageKind =
    firstDefined(PAGE_FAMILIES, (f) => f.pageKind?.(decision.observation)) ??
    words(text.split('\n', 1)[0] ?? '')
      .slice(0, 3)
      .join('_');
  const view: DecisionView = {
    instructionWords: words(instruction),
    wanted: new Set(content),
    bigrams: bigramsOf(content),
    numbers: new Set(content.filter((w) => /^\d/.test(w) && Number(w) !== budget)),
    budget,
    pageKind,
    bestCoverage: 0,
    families: PAGE_FAMILIES.map((f) => f.view(decision, candidates)),
  };
  for (const candidate of candidates) {
    if (isActionTemplate(candidate)) continue;
    const context = contextOf(view, decision, candidate);
    if (context) view.bestCoverage = Math.max(view.bestCoverage, coverage(view.wanted, context));
  }
  return view;
}

/**
 * Features of the state: the page kind (hashed words of its first two lines, e.g. `Page 1 (Total
 * results: 50)` or `You arrive at countertop 1`), progress, the number of choices, then the
 * families' block (options still to pick; the household memory's summary).
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
  out[s] = Math.min(1, decision.history.length / 20);
  out[s + 1] = Math.min(1, (decision.observation.actions?.length ?? 0) / 50);
  out[s + 2] = decision.history.length === 0 ? 1 : 0;
  out[s + 3] = 1;
  const block = out.subarray(s + FAMILY_STATE_SLOT, s + FAMILY_STATE_SLOT + FAMILY_STATE_WIDTH);
  PAGE_FAMILIES.forEach((family, i) => {
    family.state(view.families[i], decision, block);
  });
  return out;
}

/**
 * Features of one candidate action.
 *
 * Hashed: the action's verb and label, the words of what it points at (a result's title and
 * price), the verb crossed with the page kind, and the label crossed with the instruction's words
 * (so it can learn that `hot` goes with a microwave); then the families' tokens.
 *
 * Scalars 0–13 and 38, between the instruction and the action: shares of instruction words and
 * word pairs it covers, coverage against the best rival, numbers and budget, repetition. Scalars
 * 14–37 are the families' block (see {@link shopFeatures}, {@link householdFeatures},
 * {@link webFamily}).
 */
export function actionFeatures(
  decision: Decision,
  action: string,
  sizes: FeatureSizes,
  view: DecisionView = decisionView(decision, [action]),
): Float32Array {
  const out = new Float32Array(actionFeatureSize(sizes));
  const lower = action.trim().toLowerCase();
  const verb = /^\s*([a-z_]+)/i.exec(action)?.[1]?.toLowerCase() ?? '';
  const labelText = action.replace(/^\s*[a-z_]+\s*\[?/i, '').replace(/\]\s*$/, '');
  const label = words(labelText);
  const context = contextOf(view, decision, action);
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

  const s = sizes.actionBuckets;
  // Generic: overlap with the instruction, budget, repetition.
  const offered = contentWords(`${label.join(' ')} ${context}`);
  const matched = offered.filter((w) => view.wanted.has(w)).length;
  const price = priceIn(context);
  const taken = decision.history.filter((a) => a.toLowerCase() === lower).length;
  const cover = coverage(view.wanted, `${label.join(' ')} ${context}`);
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
  out[s + 9] = pairCoverage(view.bigrams, `${label.join(' ')} ${context}`);
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

  const block = out.subarray(s + FAMILY_ACTION_SLOT, s + FAMILY_ACTION_SLOT + FAMILY_ACTION_WIDTH);
  const hash: HashTokens = (tokens, weight) => {
    if ('prefix' in tokens) addHashedCrosses(out, 0, sizes.actionBuckets, tokens, weight);
    else addHashed(out, 0, sizes.actionBuckets, tokens, weight);
  };
  PAGE_FAMILIES.forEach((family, i) => {
    family.action(view.families[i], decision, action, block, hash);
  });
  return out;
}

/**
 * The page features as a {@link ChoiceFeatures}: a web page's candidates are its elements and
 * answers; elsewhere free-text templates (`search[<query>]`) are filled with `queries` queries
 * built from the instruction.
 */
export function pageFeatures(sizes: FeatureSizes, queries: number): ChoiceFeatures {
  return {
    name: 'page',
    actionSize: actionFeatureSize(sizes),
    stateSize: stateFeatureSize(sizes),
    candidates({ observation }) {
      const own = firstDefined(PAGE_FAMILIES, (f) => f.candidates?.(observation));
      if (own) return own;
      return (observation.actions ?? []).flatMap((a) =>
        isActionTemplate(a)
          ? proposeQueries(observation.instruction, queries).map((q) => fillTemplate(a, q))
          : [a],
      );
    },
    featurize(decision, candidates) {
      const a = actionFeatureSize(sizes);
      const view = decisionView(decision, candidates);
      const actions = new Float32Array(candidates.length * a);
      candidates.forEach((candidate, i) => {
        actions.set(actionFeatures(decision, candidate, sizes, view), i * a);
      });
      return { actions, state: stateFeatures(decision, sizes, view) };
    },
  };
}

/** What `action` points at: its family's word for it, else what follows its label on the page. */
function contextOf(view: DecisionView, decision: Decision, action: string): string {
  const known = firstDefined(PAGE_FAMILIES, (f, i) => f.context?.(view.families[i], action));
  if (known !== undefined) return known;
  return isActionTemplate(action) ? '' : actionContext(action, decision.observation.text);
}

/** The first defined result of `read` over `items`. */
function firstDefined<T, R>(
  items: readonly T[],
  read: (item: T, index: number) => R | undefined,
): R | undefined {
  for (let i = 0; i < items.length; i++) {
    const value = read(items[i] as T, i);
    if (value !== undefined) return value;
  }
  return undefined;
}
