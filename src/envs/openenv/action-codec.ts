/**
 * How dreamgym's text actions become OpenEnv's typed action objects, read off the action's JSON
 * Schema (the server's `GET /schema`, a Pydantic model's `model_json_schema()`).
 *
 * - **One field** — the action has exactly one required field besides OpenEnv's own `metadata`
 *   (or, with none required, exactly one field), of a plain type: the text is that field's value.
 *   `{"message": str}` (TextArena), `{"code": str}` (coding), `{"action_str": str}` (BrowserGym),
 *   `{"action": str}` (dreamgym's own server) take the text as it is; an integer, number or
 *   boolean field (`{"action_id": int}`) takes the text parsed as one; an enum field takes one of
 *   its values. Text that cannot be the field's value is refused here, before the server.
 * - **JSON** — any other action (several fields, nested objects, or no schema published): the
 *   text is the action object as JSON, e.g. `{"x": 3, "y": 4}`.
 *
 * Empty text is refused in both forms: it never names an action. A refusal is an invalid action
 * (reward 0, state unchanged), never an error.
 */
export interface ActionCodec {
  /** The action object for `text`, or why `text` cannot be one. */
  encode(text: string): { action: Record<string, unknown> } | { invalid: string };
}

/** The part of a JSON Schema the codec reads. */
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
}

type FieldKind =
  | { kind: 'string' | 'integer' | 'number' | 'boolean' }
  | { kind: 'enum'; values: string[] };

/** OpenEnv's `Action` base class adds this field to every action; agents never fill it. */
const BASE_FIELDS = new Set(['metadata']);

/** The codec for an action schema; `undefined` (no schema published) means JSON actions. */
export function actionCodec(schema: unknown): ActionCodec {
  const root = isObject(schema) ? (schema as JsonSchema) : undefined;
  const properties = root?.properties ?? {};
  const fields = Object.keys(properties).filter((name) => !BASE_FIELDS.has(name));
  const required = (root?.required ?? []).filter((name) => !BASE_FIELDS.has(name));
  const candidates = required.length > 0 ? required : fields;
  const [only] = candidates;
  const kind =
    candidates.length === 1 && only !== undefined && root
      ? fieldKind(properties[only], root)
      : undefined;
  if (only !== undefined && kind) return fieldCodec(only, kind);
  return jsonCodec(candidates, root !== undefined);
}

function fieldCodec(field: string, kind: FieldKind): ActionCodec {
  const wrap = (value: unknown) => ({ action: { [field]: value } });
  return {
    encode(text) {
      if (text.trim() === '') return { invalid: 'an empty action names nothing to do.' };
      const word = text.trim();
      const refuse = (expected: string) => ({
        invalid: `"${word}" is not ${expected}, and this server's action is {"${field}": <${expected}>}.`,
      });
      switch (kind.kind) {
        case 'string':
          return wrap(text);
        case 'integer':
          return /^[-+]?\d+$/.test(word) ? wrap(Number(word)) : refuse('a whole number');
        case 'number':
          return Number.isFinite(Number(word)) ? wrap(Number(word)) : refuse('a number');
        case 'boolean':
          return word === 'true' || word === 'false'
            ? wrap(word === 'true')
            : refuse('true or false');
        case 'enum':
          return kind.values.includes(word)
            ? wrap(word)
            : refuse(`one of ${kind.values.map((v) => JSON.stringify(v)).join(', ')}`);
      }
    },
  };
}

function jsonCodec(fields: string[], published: boolean): ActionCodec {
  const example = fields.length > 0 ? `{${fields.map((f) => `"${f}": …`).join(', ')}}` : '{…}';
  const source = published ? 'its GET /schema' : 'the server publishes no /schema';
  return {
    encode(text) {
      if (text.trim() === '') return { invalid: 'an empty action names nothing to do.' };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (!isObject(value)) {
        return {
          invalid: `this server's actions are JSON objects (${source}): write e.g. ${example}.`,
        };
      }
      return { action: value };
    },
  };
}

/** The plain kind of a field's schema, following `$ref` and `Optional[...]`; else undefined. */
function fieldKind(schema: JsonSchema | undefined, root: JsonSchema): FieldKind | undefined {
  const resolved = resolve(schema, root);
  if (!resolved) return undefined;
  if (Array.isArray(resolved.enum) && resolved.enum.every((v) => typeof v === 'string')) {
    return { kind: 'enum', values: resolved.enum as string[] };
  }
  const union = resolved.anyOf ?? resolved.oneOf;
  if (union) {
    const present = union.filter((member) => resolve(member, root)?.type !== 'null');
    return present.length === 1 ? fieldKind(present[0], root) : undefined;
  }
  const type = Array.isArray(resolved.type)
    ? resolved.type.filter((t) => t !== 'null')
    : [resolved.type];
  const [only] = type;
  if (type.length !== 1) return undefined;
  return only === 'string' || only === 'integer' || only === 'number' || only === 'boolean'
    ? { kind: only }
    : undefined;
}

/** Follows a local `$ref` (`#/$defs/Name`, `#/definitions/Name`). */
function resolve(schema: JsonSchema | undefined, root: JsonSchema): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (!ref) return schema;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = match[1] === '$defs' ? root.$defs : root.definitions;
  return defs?.[match[2] as string];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
