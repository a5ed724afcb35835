import type { JsonSchema } from '../structured.ts';

/**
 * A small value that matches a JSON Schema: the first enum value or const, the first branch of a
 * union, every property of an object, the minimum of a number, `minItems` items of an array.
 * What a well-behaved model would answer, for fakes that need a valid answer to any schema.
 */
export function exampleOf(schema: JsonSchema): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches?.[0]) return exampleOf(branches[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, exampleOf(s)]));
    }
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => exampleOf(items));
    }
    case 'string':
      return 'x'.repeat(Number(schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return (
        Number(schema.minimum ?? schema.exclusiveMinimum ?? 0) +
        (schema.exclusiveMinimum !== undefined ? 1 : 0)
      );
    case 'boolean':
      return true;
    default:
      return null;
  }
}
