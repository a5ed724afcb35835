import type { JsonSchema } from './structured.ts';

const GRAMMAR_FORMATS = new Set(['date-time', 'time', 'date']);
const ANY_SCALAR = ['string', 'number', 'boolean', 'null'].map((type) => ({ type }));

/**
 * Maps a JSON Schema (zod's draft 2020-12 output) onto the subset node-llama-cpp turns into a
 * grammar: `anyOf` becomes `oneOf`, `{type, const}` and `{type, enum}` lose their `type`, and
 * keywords it lacks (pattern, numeric bounds, most formats) are dropped. Dropping only loosens
 * the grammar; zod still validates every answer, so nothing invalid gets through.
 */
export function toGbnfJsonSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  if (typeof schema.description === 'string') out.description = schema.description;
  if (schema.$defs) out.$defs = mapValues(schema.$defs as Record<string, JsonSchema>);
  if ('const' in schema) return { ...out, const: schema.const };
  if (Array.isArray(schema.enum)) return { ...out, enum: schema.enum };
  if (typeof schema.$ref === 'string') return { ...out, $ref: schema.$ref };
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return { ...out, oneOf: branches.map(toGbnfJsonSchema) };
  switch (schema.type) {
    case 'object':
      return {
        ...out,
        type: 'object',
        ...(schema.properties !== undefined && {
          properties: mapValues(schema.properties as Record<string, JsonSchema>),
        }),
        ...(schema.required !== undefined && { required: schema.required }),
        ...(schema.additionalProperties !== undefined && {
          additionalProperties:
            typeof schema.additionalProperties === 'boolean'
              ? schema.additionalProperties
              : toGbnfJsonSchema(schema.additionalProperties as JsonSchema),
        }),
      };
    case 'array':
      return {
        ...out,
        type: 'array',
        ...(schema.items !== undefined && { items: toGbnfJsonSchema(schema.items as JsonSchema) }),
        ...(Array.isArray(schema.prefixItems) && {
          prefixItems: (schema.prefixItems as JsonSchema[]).map(toGbnfJsonSchema),
        }),
        ...pick(schema, ['minItems', 'maxItems']),
      };
    case 'string':
      return {
        ...out,
        type: 'string',
        ...(GRAMMAR_FORMATS.has(schema.format as string)
          ? { format: schema.format }
          : pick(schema, ['minLength', 'maxLength'])),
      };
    case undefined:
      // An unconstrained value: node-llama-cpp would read `{}` as null, so allow any scalar.
      return { ...out, oneOf: ANY_SCALAR };
    default:
      return { ...out, type: schema.type };
  }
}

function mapValues(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, toGbnfJsonSchema(s)]));
}

function pick(schema: JsonSchema, keys: string[]): JsonSchema {
  return Object.fromEntries(keys.filter((k) => schema[k] !== undefined).map((k) => [k, schema[k]]));
}
