import type { Observation } from '../../core/types.ts';
import type { CrossTokens } from './hashing.ts';

/** What the policy sees at one decision. */
export interface Decision {
  observation: Observation;
  /** Actions taken so far in the episode, oldest first. */
  history: readonly string[];
  /** The env's reply to each history action (same length), for the episode memory. */
  observations?: readonly Observation[];
}

/** A decision's feature vectors, laid out for the network. */
export interface DecisionFeatures {
  /** [candidates × actionSize], row-major. */
  actions: Float32Array;
  /** [stateSize]. */
  state: Float32Array;
}

/**
 * A choice policy's features: the concrete actions it chooses among in a state, and the vectors
 * its network scores them from. The network's input sizes come from here, so a policy keeps one
 * feature set for life (it is saved with the weights by family name).
 */
export interface ChoiceFeatures {
  /** `page` (the shop, household and web features) or `generic`. */
  readonly name: string;
  readonly actionSize: number;
  readonly stateSize: number;
  /**
   * The concrete candidates of a decision: the admissible actions, with each `<placeholder>`
   * template filled with values this feature set proposes.
   */
  candidates(decision: Decision): string[];
  /** The features of `candidates` in `decision`, computed together (they share its facts). */
  featurize(decision: Decision, candidates: readonly string[]): DecisionFeatures;
}

/**
 * Adds hashed tokens into the action's hash buckets: a list (see `addHashed`) or crossed pairs
 * (see `addHashedCrosses`), each call scaled by 1/√(its token count).
 */
export type HashTokens = (tokens: readonly string[] | CrossTokens, weight: number) => void;

/**
 * What one env family adds to a feature set: scalars that only mean something on its own pages
 * (a shop's option groups, a household's memory of where things are, a web page's elements),
 * written into a block of the vectors that the feature set reserves for families. The block is
 * all zeros on pages the family does not recognise, so families can share one.
 */
export interface FamilyFeatures<View = unknown> {
  readonly name: string;
  /** Action scalars the family writes (its block's width). */
  readonly actionScalars: number;
  /** State scalars the family writes. */
  readonly stateScalars: number;
  /** The facts its features need, computed once per decision and shared by the candidates. */
  view(decision: Decision, candidates: readonly string[]): View;
  /** Writes `action`'s scalars into `block` and may add hashed tokens for it. */
  action(
    view: View,
    decision: Decision,
    action: string,
    block: Float32Array,
    hash: HashTokens,
  ): void;
  /** Writes the state's scalars into `block`. */
  state(view: View, decision: Decision, block: Float32Array): void;
}

/**
 * A family of the page features, which may also propose the page's candidates, name the page's
 * kind and tell what a candidate points at (the web family does, for accessibility trees).
 */
export interface PageFamily<View = unknown> extends FamilyFeatures<View> {
  /** The concrete candidates of a page of this family; undefined for other pages. */
  candidates?(observation: Observation): string[] | undefined;
  /** The page's kind; undefined for other pages. */
  pageKind?(observation: Observation): string | undefined;
  /** What `action` points at on the page; undefined when the family does not know. */
  context?(view: View, action: string): string | undefined;
}
