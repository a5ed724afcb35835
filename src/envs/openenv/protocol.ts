import { z } from 'zod';
import { quoteExcerpt } from '../../core/excerpt.ts';
import { type OpenEnvCallSite, OpenEnvProtocolError } from './errors.ts';

/**
 * OpenEnv's wire shapes as its clients read them (`openenv/core/env_server/types.py` and
 * `serialization.py`): the answer to reset and step, the WebSocket envelope, its error codes.
 */

/**
 * The answer to reset and step: the observation's own fields, and `reward` and `done` lifted
 * out of it. OpenEnv's serializer drops the observation's `metadata`; some servers (dreamgym's)
 * send it at the top level or inside `observation`, and both are read. A reward may be a
 * boolean (OpenEnv's `Observation.reward` allows one); a missing `done` is false, as in
 * OpenEnv's `GenericEnvClient`.
 */
const AnswerSchema = z.object({
  observation: z.record(z.string(), z.unknown()),
  reward: z.union([z.number(), z.boolean()]).nullish(),
  done: z.boolean().default(false),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** An answer to reset or step, checked. */
export type OpenEnvAnswer = z.output<typeof AnswerSchema>;

/** The server rejected an action before stepping (it failed the action schema): why, in words. */
export interface Rejection {
  rejected: string;
}

/** A WebSocket message from the server: `{ type, data }`. */
export const EnvelopeSchema = z.object({
  type: z.string(),
  data: z.record(z.string(), z.unknown()).default({}),
});

/** The `data` of a WebSocket `error` message (`WSErrorResponse`). */
export const ErrorDataSchema = z.object({
  message: z.string().default('(no message)'),
  code: z.string().default('UNKNOWN'),
  active_sessions: z.number().optional(),
  max_sessions: z.number().optional(),
  errors: z.unknown().optional(),
});

/** OpenEnv's WebSocket error codes (`WSErrorCode`). */
export type WsErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'CAPACITY_REACHED'
  | 'FACTORY_ERROR'
  | 'SESSION_ERROR';

/** Checks an answer to reset or step; anything else is an {@link OpenEnvProtocolError}. */
export function parseAnswer(site: OpenEnvCallSite, body: unknown): OpenEnvAnswer {
  return parseWith(site, AnswerSchema, body);
}

/** Checks `body` against `schema`; a mismatch names the fields and shows the body. */
export function parseWith<T>(site: OpenEnvCallSite, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new OpenEnvProtocolError(
      site,
      `an unexpected body (${z.prettifyError(parsed.error).replace(/\n/g, '; ')}): ${quoteExcerpt(JSON.stringify(body) ?? String(body))}`,
    );
  }
  return parsed.data;
}

/**
 * Why the server rejected an action, in one line: Pydantic's validation errors (`[{ loc, msg }]`,
 * as both the WebSocket `errors` and HTTP 422 `detail` carry them) as `guess: Input should be
 * …`, else the server's own words.
 */
export function describeRejection(message: string, errors: unknown): string {
  if (Array.isArray(errors) && errors.length > 0) {
    const parts = errors.map((error) => {
      const { loc, msg } = (error ?? {}) as { loc?: unknown; msg?: unknown };
      const where = Array.isArray(loc) ? loc.filter((part) => part !== 'body').join('.') : '';
      const what = typeof msg === 'string' ? msg : JSON.stringify(error);
      return where ? `${where}: ${what}` : what;
    });
    return `the server rejected the action: ${parts.join('; ')}`;
  }
  if (typeof errors === 'string' && errors.length > 0) {
    return `the server rejected the action: ${errors}`;
  }
  return `the server rejected the action: ${message}`;
}
