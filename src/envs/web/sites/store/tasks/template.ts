/**
 * What a store task template is: phrasings of an intent with `{{slots}}`, the instantiations the
 * generated data allows, and how one instantiation is checked. Helpers build WebArena eval blocks.
 */

import type Database from 'better-sqlite3';
import type { Rng } from '../../../../../core/rng.ts';
import { type EvalConfig, OR_SEPARATOR, SITE_PLACEHOLDERS } from '../../../webarena/config.ts';

/** The placeholder that stands for the store's base URL in configs. */
export const STORE_URL = SITE_PLACEHOLDERS.shopping_admin as string;

/** Slot values of one task: what its intent names (the expert may read them). */
export type Slots = Record<string, string>;

/** One instantiation: the slots and the checks that decide it. */
export interface TemplateInstance {
  slots: Slots;
  eval: EvalConfig;
}

export type TemplateKind = 'info' | 'navigation' | 'change';

/**
 * A task template. `candidates` lists, in a fixed order, the rows a task may be about (each must
 * make a solvable task whose checks fail before the agent acts); `instantiate` turns one into
 * slots and checks, drawing anything new (a new price, a comment) from `rng`.
 */
export interface StoreTemplate<Row = Record<string, unknown>> {
  /** WebArena's `intent_template_id`. */
  id: number;
  /** Stable name, e.g. `product-price`; the expert dispatches on it. */
  key: string;
  kind: TemplateKind;
  /** Phrasings of the intent; every `{{slot}}` of the instance appears in each. */
  intents: readonly string[];
  candidates(db: Database.Database): Row[];
  instantiate(row: Row, rng: Rng, db: Database.Database): TemplateInstance;
}

/** Declares a template with its row type checked, stored with the others. */
export function template<Row>(definition: StoreTemplate<Row>): StoreTemplate {
  return definition as unknown as StoreTemplate;
}

/** string_match: the answer equals `answer` (WebArena cleans both sides). */
export function exactAnswer(answer: string): EvalConfig {
  return {
    eval_types: ['string_match'],
    reference_answers: { exact_match: answer },
    reference_url: '',
    program_html: [],
  };
}

/** string_match: the answer includes every entry; an entry's alternatives joined by ` |OR| `. */
export function answerIncludes(...entries: ReadonlyArray<string | readonly string[]>): EvalConfig {
  return {
    eval_types: ['string_match'],
    reference_answers: {
      must_include: entries.map((e) => (typeof e === 'string' ? e : e.join(OR_SEPARATOR))),
    },
    reference_url: '',
    program_html: [],
  };
}

/** url_match: the episode ends on `path` (with its query parameters), WebArena's `GOLD in PRED`. */
export function endsOn(path: string): EvalConfig {
  return {
    eval_types: ['url_match'],
    reference_answers: null,
    reference_url: STORE_URL + path,
    url_note: 'GOLD in PRED',
    program_html: [],
  };
}

/** program_html: the text `locator` reads on `path` meets `contents`. */
export function pageShows(
  path: string,
  locator: string,
  contents: { exact_match?: string; must_include?: string[]; must_exclude?: string[] },
): EvalConfig {
  return {
    eval_types: ['program_html'],
    reference_answers: null,
    reference_url: '',
    program_html: [{ url: STORE_URL + path, locator, required_contents: contents }],
  };
}

/** A locator reading an element's visible text; empty when the element is absent. */
export function textOf(selector: string): string {
  return `document.querySelector(${JSON.stringify(selector)})?.outerText ?? ''`;
}
