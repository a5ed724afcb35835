import { z } from 'zod';
import type { FinishReason } from './client.ts';
import type { OutputProblem } from './errors.ts';

export type JsonSchema = Record<string, unknown>;

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema sent to backends for a zod schema. It describes the schema's *input*, since
 * that is what the model writes and zod then parses (defaults, transforms). Objects are closed
 * (`additionalProperties: false`, as OpenAI's strict mode requires) unless the schema keeps
 * unknown keys itself; types JSON Schema cannot express become "any" rather than failing, and
 * zod's validation still checks them. No `$schema` tag: some servers refuse it. Memoised per
 * schema object, since callers reuse one schema for thousands of calls.
 */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _, ...rest } = z.toJSONSchema(schema, {
      io: 'input',
      unrepresentable: 'any',
      override: ({ jsonSchema }) => {
        if (jsonSchema.type === 'object' && jsonSchema.additionalProperties === undefined)
          jsonSchema.additionalProperties = false;
      },
    }) as JsonSchema;
    json = rest;
    jsonSchemas.set(schema, json);
  }
  return json;
}

export type AnswerCheck<T> =
  | { ok: true; value: T }
  | { ok: false; problem: OutputProblem; detail: string };

/**
 * Parses and validates a structured answer. Tolerates a Markdown code fence around the JSON,
 * which chat models add out of habit. A parse failure after the token limit is reported as
 * truncation, the one case where the fix is more tokens rather than a better answer.
 */
export function checkAnswer<T>(
  text: string,
  finishReason: FinishReason,
  schema: z.ZodType<T>,
): AnswerCheck<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfence(text));
  } catch (error) {
    return finishReason === 'length'
      ? { ok: false, problem: 'truncated', detail: 'the answer was cut off at the token limit' }
      : { ok: false, problem: 'invalid-json', detail: (error as Error).message };
  }
  const result = schema.safeParse(parsed);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problem: 'schema-mismatch', detail: z.prettifyError(result.error) };
}

function unfence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced ? (fenced[1] as string) : text;
}
