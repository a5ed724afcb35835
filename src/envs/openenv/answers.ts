import type { Observation, StepInfo } from '../../core/types.ts';
import type { OpenEnvAnswer } from './protocol.ts';

/**
 * How an OpenEnv answer becomes dreamgym's observation and step outcome. OpenEnv observations
 * are typed objects whose fields differ per env; dreamgym's are `{ text, instruction, actions }`.
 *
 * - `instruction`: the first non-empty string among {@link INSTRUCTION_FIELDS}; a step whose
 *   observation has none keeps the episode's instruction (given by the caller).
 * - `actions`: the first list of strings or numbers among {@link ACTION_LIST_FIELDS}, as text;
 *   left out when the server lists none.
 * - `text`: the `text` field when it is a string (dreamgym's own server, BrowserGym); else every
 *   other field but the action list, `metadata` and `instruction`, one `name: value` line each,
 *   in the server's order (strings as they are, anything else as JSON).
 * - `reward`: null (a reset, or no reward) is 0; a boolean is 1 or 0.
 * - `done` is `terminated`, unless the answer's metadata says `truncated: true` (dreamgym's own
 *   server keeps the two apart there): OpenEnv itself has only `done`.
 * - `info`: the metadata's `invalidAction` and `truncatedBy` when they are strings, and the whole
 *   metadata under `metadata` when there is any.
 */

/** Fields read as the task's instruction, in this order. */
export const INSTRUCTION_FIELDS = ['instruction', 'goal', 'task', 'prompt', 'question'] as const;

/** Fields read as the list of admissible actions, in this order. */
export const ACTION_LIST_FIELDS = [
  'actions',
  'legal_actions',
  'available_actions',
  'valid_actions',
  'admissible_actions',
] as const;

/** An answer read as dreamgym's step outcome. */
export interface ReadAnswer {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: StepInfo;
}

/** Reads one answer to reset or step; `instruction` is the episode's so far ('' at reset). */
export function readAnswer(answer: OpenEnvAnswer, instruction: string): ReadAnswer {
  const metadata = {
    ...asRecord(answer.observation.metadata),
    ...(answer.metadata ?? {}),
  };
  const truncated = answer.done && metadata.truncated === true;
  const info: StepInfo = {
    ...(typeof metadata.invalidAction === 'string' && { invalidAction: metadata.invalidAction }),
    ...(typeof metadata.truncatedBy === 'string' && { truncatedBy: metadata.truncatedBy }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
  return {
    observation: readObservation(answer.observation, instruction),
    reward: typeof answer.reward === 'boolean' ? Number(answer.reward) : (answer.reward ?? 0),
    terminated: answer.done && !truncated,
    truncated,
    info,
  };
}

/** An OpenEnv observation's fields as dreamgym's {@link Observation}. */
export function readObservation(fields: Record<string, unknown>, instruction: string): Observation {
  const instructionField = INSTRUCTION_FIELDS.find(
    (name) => typeof fields[name] === 'string' && fields[name] !== '',
  );
  const actionsField = ACTION_LIST_FIELDS.find((name) => isActionList(fields[name]));
  const skip = new Set<string>(['metadata', 'instruction', 'done', 'reward']);
  if (actionsField) skip.add(actionsField);
  const text =
    typeof fields.text === 'string'
      ? fields.text
      : Object.entries(fields)
          .filter(([name]) => !skip.has(name))
          .map(
            ([name, value]) =>
              `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
          )
          .join('\n');
  return {
    text,
    instruction: instructionField ? (fields[instructionField] as string) : instruction,
    ...(actionsField && { actions: (fields[actionsField] as unknown[]).map(String) }),
  };
}

function isActionList(value: unknown): value is Array<string | number> {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number');
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
