import type { Trajectory } from '../core/types.ts';

/**
 * What one observation of an episode asserts about the world, as `key → value` facts (`the result
 * page 1 of query q lists these rows`, `cabinet 3 is open and holds a mug 1`), and which earlier
 * facts the action that led to it may have changed. Consistency compares a fact with the same
 * key's last value in the episode unless the key was invalidated in between.
 */
export interface ObservationFacts {
  /** Index of the observation: 0 is the initial one, t + 1 the one after step t. */
  t: number;
  /** Keys whose earlier values the action leading here may have changed (checked first). */
  invalidates: string[];
  facts: Array<[key: string, value: string]>;
}

/**
 * An env family's reading of its observations for the quality proxies: which entities a text
 * names and which facts each observation asserts. Written from the family's public text format,
 * like the LLM-free models, so it reads real and synthetic episodes alike.
 */
export interface QualityLens {
  readonly family: string;
  /** Entities a text names: product ids and titles, object and receptacle names, … */
  entities(text: string): string[];
  /** The facts of every observation of an episode, in order (initial first). */
  facts(trajectory: Trajectory): ObservationFacts[];
}
