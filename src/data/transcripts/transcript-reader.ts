import type { Trajectory } from '../../core/types.ts';
import type { Outcome } from './outcome.ts';

/** What every transcript reader needs besides the text. */
export interface TranscriptReadOptions {
  /** The file the text came from, as errors should name it. */
  file: string;
  /** The env family the episodes belong to (`Task.env`), e.g. `helpdesk`. */
  env: string;
  /**
   * Outcomes by conversation id or trace id, from an outcomes file (`readOutcomes`). Where the
   * transcript carries its own outcome too, the two must agree.
   */
  outcomes?: ReadonlyMap<string, Outcome>;
  /**
   * The time stamped on episodes whose transcript records none (OpenAI chat lines carry no
   * times). Default: now. Fix it for reproducible output.
   */
  importedAt?: Date;
}

/** A reader's result: every episode of the text, and what it skipped or could not match. */
export interface TranscriptRead {
  /** One `real-offline` trajectory per episode, in the order the text holds them. */
  trajectories: Trajectory[];
  /** Recoverable oddities (an outcome matching no episode, a trace with no GenAI spans). */
  warnings: string[];
}

/**
 * Reads a whole transcript text into trajectories, all or nothing: the first problem throws a
 * `DataFormatError` naming the file, the line (or span) and the reason.
 */
export type TranscriptReader = (text: string, options: TranscriptReadOptions) => TranscriptRead;

/** Warnings for outcome-file ids that matched no episode of the text, so a typo shows. */
export function unmatchedOutcomeWarnings(
  outcomes: ReadonlyMap<string, Outcome> | undefined,
  matched: ReadonlySet<string>,
): string[] {
  const unmatched = [...(outcomes?.keys() ?? [])].filter((id) => !matched.has(id));
  if (unmatched.length === 0) return [];
  const shown = unmatched.slice(0, 5).map((id) => JSON.stringify(id));
  const more = unmatched.length > 5 ? ` and ${unmatched.length - 5} more` : '';
  return [
    `${unmatched.length} outcome(s) match no episode of this file: ${shown.join(', ')}${more}`,
  ];
}
