/**
 * An episode's outcome, read from a transcript's own fields or from a separate outcomes file.
 *
 * Accepted forms, on a conversation (or its `metadata`), a line of an outcomes file, or a span
 * attribute (`ai.telemetry.metadata.*`, `dreamgym.*`):
 * - `"reward": 0.5` — any finite number;
 * - `"success": true | false` — reward 1 or 0;
 * - `"outcome": "success" | "failure"` — also succeeded/solved/resolved/pass/passed (reward 1),
 *   failed/fail/unsolved/unresolved (reward 0), or a number.
 * Several may be given if they agree; when they disagree the transcript is refused.
 */

import { DataFormatError } from '../../core/errors.ts';
import { parseJsonLines } from './json-lines.ts';
import { describeValue, isObject, TranscriptProblem } from './transcript-problem.ts';

/** An episode's final reward and where it was read, so a disagreement can name both sides. */
export interface Outcome {
  reward: number;
  /** E.g. `the conversation's "outcome" field` or `outcomes.jsonl:3`. */
  source: string;
}

/** The fields an outcome can be given in, in the order they are read. */
export const OUTCOME_FIELDS = ['reward', 'success', 'outcome'] as const;

const SUCCESS_WORDS = ['success', 'succeeded', 'solved', 'resolved', 'pass', 'passed'];
const FAILURE_WORDS = ['failure', 'failed', 'fail', 'unsolved', 'unresolved'];

/**
 * The outcome `fields` give (`reward`, `success`, `outcome`; see the module doc), or undefined when
 * they give none. `source` says where the fields are, for messages. Throws a
 * {@link TranscriptProblem} for a malformed value or fields that disagree.
 */
export function outcomeFromFields(
  fields: Record<string, unknown>,
  source: string,
): Outcome | undefined {
  const found: Outcome[] = [];
  for (const field of OUTCOME_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    const at = `${source} "${field}"`;
    try {
      found.push({ reward: rewardOf(field, value), source: at });
    } catch (error) {
      if (error instanceof TranscriptProblem)
        throw new TranscriptProblem(`${at}: ${error.message}`);
      throw error;
    }
  }
  return combineOutcomes(found);
}

/** The one outcome all of `outcomes` agree on; undefined for none. Throws when two disagree. */
export function combineOutcomes(outcomes: readonly Outcome[]): Outcome | undefined {
  const [first, ...rest] = outcomes;
  const other = rest.find((o) => o.reward !== first?.reward);
  if (first && other) {
    throw new TranscriptProblem(
      `outcomes disagree: reward ${first.reward} from ${first.source} but ${other.reward} from ${other.source}; keep one`,
    );
  }
  return first;
}

function rewardOf(field: (typeof OUTCOME_FIELDS)[number], value: unknown): number {
  if (field === 'reward' || (field === 'outcome' && typeof value === 'number')) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw new TranscriptProblem(`expected a finite number, got ${describeValue(value)}`);
  }
  if (field === 'success') {
    if (typeof value === 'boolean') return value ? 1 : 0;
    throw new TranscriptProblem(`expected true or false, got ${describeValue(value)}`);
  }
  const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (word !== undefined && SUCCESS_WORDS.includes(word)) return 1;
  if (word !== undefined && FAILURE_WORDS.includes(word)) return 0;
  throw new TranscriptProblem(
    `expected "success" or "failure" (or ${[...SUCCESS_WORDS.slice(1), ...FAILURE_WORDS.slice(1)].join(', ')}, or a number), got ${describeValue(value)}`,
  );
}

/**
 * Reads an outcomes file: JSON Lines of `{"id": "c-17", "reward": 1}` (or `success`/`outcome`, as
 * above), one per episode, keyed by the conversation's `id` or the trace's `traceId`. Other fields
 * are ignored. A line without an id or an outcome, or an id given twice, throws a
 * `DataFormatError` naming `file` and the line.
 */
export function readOutcomes(text: string, file: string): Map<string, Outcome> {
  const outcomes = new Map<string, Outcome>();
  const lineOfId = new Map<string, number>();
  for (const { line, value } of parseJsonLines(text, file, 'one {"id": …, "reward": …}')) {
    const refuse = (problem: string) => new DataFormatError(file, line, problem);
    if (!isObject(value)) {
      throw refuse(`expected a JSON object {"id": …, "reward": …}, got ${describeValue(value)}`);
    }
    const { id } = value;
    if (!((typeof id === 'string' && id !== '') || typeof id === 'number')) {
      throw refuse(
        `id: expected the conversation's id or the trace's traceId, got ${describeValue(id)}`,
      );
    }
    const key = String(id);
    const earlier = lineOfId.get(key);
    if (earlier !== undefined) {
      throw refuse(`id ${JSON.stringify(key)} already has an outcome on line ${earlier}`);
    }
    let outcome: Outcome | undefined;
    try {
      outcome = outcomeFromFields(value, 'the outcome');
    } catch (error) {
      if (error instanceof TranscriptProblem) throw refuse(error.message);
      throw error;
    }
    if (!outcome) {
      throw refuse(
        `no outcome for ${JSON.stringify(key)}: add "reward": 1, "success": true or "outcome": "success"`,
      );
    }
    outcomes.set(key, { reward: outcome.reward, source: `${file}:${line}` });
    lineOfId.set(key, line);
  }
  return outcomes;
}
