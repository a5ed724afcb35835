import type { Context } from 'hono';
import { z } from 'zod';
import { RequestError } from './errors.ts';

/** A whole number as AgentGym's ids and indices are; `null` is not one. */
export const Int = z.number().int();

/** A query parameter holding a whole number (`?env_idx=12`). */
export const IntParam = z
  .string()
  .regex(/^-?\d+$/, 'expected a whole number')
  .transform(Number);

/**
 * The request's JSON body checked against `schema`, or a {@link RequestError} naming the field
 * at fault. An empty body counts as `{}`: clients such as AgentGym's POST `/create` with none.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let json: unknown = {};
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      throw new RequestError(
        `the request body is not JSON: send a JSON object such as ${example(schema)}.`,
      );
    }
  }
  return check(schema, json, 'body');
}

/** The request's query parameters checked against `schema`. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check(schema, c.req.query(), 'query');
}

/** `value` checked against `schema`; problems are listed as `where.field: problem`. */
export function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const path = [where, ...issue.path.map(String)].join('.');
    return `${path}: ${issue.message}`;
  });
  throw new RequestError(`${problems.join('; ')}.`);
}

/** A one-line JSON example of what `schema` wants, for error messages. */
function example(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: string }>;
  };
  const fields = Object.entries(json.properties ?? {}).map(
    ([name, field]) => `"${name}": <${field.type ?? 'value'}>`,
  );
  return `{${fields.join(', ')}}`;
}
