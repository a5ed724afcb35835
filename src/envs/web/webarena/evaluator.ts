import type { BrowserContext, Page } from 'playwright-core';
import type { EvalType, WebArenaConfig } from './config.ts';

/** What an evaluator sees when an episode ends. */
export interface EvaluationContext {
  /** The task config, site placeholders already substituted. */
  config: WebArenaConfig;
  /** The page the episode ended on (the current tab). */
  page: Page;
  /** The episode's browser context; program_html checks open their pages in it. */
  context: BrowserContext;
  /** The agent's answer from `stop [answer]`; undefined when the episode ended without one. */
  answer: string | undefined;
}

/** One check's outcome. `passed` is undefined when it could not be decided (no judge). */
export interface CheckOutcome {
  /** The eval type, refined where useful (e.g. `string_match/fuzzy_match`). */
  check: EvalType | `${EvalType}/${string}`;
  passed: boolean | undefined;
  /** What was compared, in words: expected vs found. */
  detail: string;
}

/**
 * An episode's evaluation: reward 1 when every configured check passed, else 0. `undecided` is
 * true when some check could not be decided: it needs an LLM judge and none was configured (or
 * the judge failed), it uses a WebArena helper we cannot run, or its page did not load. The
 * reward is then 0 and the outcome must be reported as undecided (the check's `detail` says
 * why), never counted as a plain failure.
 */
export interface Evaluation {
  reward: 0 | 1;
  checks: CheckOutcome[];
  undecided: boolean;
}

/** Evaluates a finished episode against its task config (WebArena's evaluators). */
export type TaskEvaluator = (context: EvaluationContext) => Promise<Evaluation>;
