/**
 * Episode memory for JSON answers: what this episode last showed about each thing with an id.
 * An object is about the first id-like string among its fields (`{"id": "X-12", …}`,
 * `{"ok": true, "item": "X-12", "state": "closed"}`); every field it shows is a fact about that
 * id, the latest showing winning. A later answer about the same id shows those facts: a record
 * read twice reads the same, and a change the episode made (a field it set) stays made.
 */
import { memoize } from '../../core/memo.ts';
import { containsValue, isIdLike } from './text.ts';

/** Id → field → the value the episode last showed. */
export type Facts = Map<string, Map<string, unknown>>;

/** The facts the JSON texts show, read in order (later texts win). */
export function factsOf(texts: readonly string[]): Facts {
  const facts: Facts = new Map();
  for (const text of texts) {
    const parsed = parseJson(text);
    if (parsed === undefined) continue;
    visit(parsed, (object, id) => {
      const known = facts.get(id) ?? new Map<string, unknown>();
      for (const [field, value] of Object.entries(object)) {
        if (value !== id) known.set(field, value);
      }
      facts.set(id, known);
    });
  }
  return facts;
}

/**
 * `text` with every object about a known id showing the episode's facts for the fields it has
 * (fields it does not have are not added), except where `changed` says the step itself changed
 * the field. Texts that are not compact or two-space JSON are left as they are, so that the
 * format never changes.
 */
export function applyFacts(
  text: string,
  facts: Facts,
  changed: (id: string, field: string, value: unknown) => boolean = () => false,
): string {
  const parsed = parseJson(text);
  if (parsed === undefined || facts.size === 0) return text;
  const indent =
    JSON.stringify(parsed) === text ? 0 : JSON.stringify(parsed, null, 2) === text ? 2 : -1;
  if (indent < 0) return text;
  visit(parsed, (object, id) => {
    const known = facts.get(id);
    if (!known) return;
    for (const field of Object.keys(object)) {
      if (object[field] === id || !known.has(field) || changed(id, field, object[field])) continue;
      const value = known.get(field);
      if (isIdLike(String(object[field])) !== isIdLike(String(value))) continue;
      object[field] = value;
    }
  });
  return indent === 0 ? JSON.stringify(parsed) : JSON.stringify(parsed, null, 2);
}

/**
 * `text` without what it says about `value`: a JSON text loses the array elements that hold
 * `value` as a field, another text the lines that show it (a text of one line stays whole). How
 * the answer about a thing nobody showed reads: that thing is not there.
 */
export function withoutMentions(text: string, value: string): string {
  const parsed = parseJson(text);
  if (parsed !== undefined) {
    const indent = JSON.stringify(parsed) === text ? 0 : 2;
    const holds = (v: unknown): boolean =>
      typeof v === 'string'
        ? v === value
        : typeof v === 'object' && v !== null && Object.values(v).some(holds);
    const prune = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.filter((x) => !holds(x)).map(prune);
      if (typeof v !== 'object' || v === null) return v;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prune(x)]));
    };
    return indent === 0 ? JSON.stringify(prune(parsed)) : JSON.stringify(prune(parsed), null, 2);
  }
  const lines = text.split('\n');
  const kept = lines.filter((line) => !containsValue(line, value));
  return kept.length === 0 ? text : kept.join('\n');
}

function parseJson(text: string): unknown {
  const parsed = parsedJson(text);
  // A fresh copy: `applyFacts` changes what it parsed.
  return parsed === undefined ? undefined : structuredClone(parsed);
}

/** A text's JSON, parsed once (undefined when it is not JSON); never to be changed. */
const parsedJson = memoize((text: string): unknown => {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}, 5000);

/**
 * The fields a step set on the things it acted on (`ids`): those whose value in the step's
 * answer differs from what the episode had shown of them before.
 */
export function fieldsSet(
  before: Facts,
  after: Facts,
  ids: readonly string[],
): Array<[string, boolean]> {
  const out: Array<[string, boolean]> = [];
  for (const id of ids) {
    const was = before.get(id);
    const is = after.get(id);
    if (!was || !is) continue;
    for (const [field, value] of is)
      if (was.has(field))
        out.push([field, JSON.stringify(was.get(field)) !== JSON.stringify(value)]);
  }
  return out;
}

/** Calls `each` for every object (nested ones too) that is about an id. */
function visit(value: unknown, each: (object: Record<string, unknown>, id: string) => void): void {
  if (Array.isArray(value)) {
    for (const v of value) visit(v, each);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  const id = Object.values(object).find((v): v is string => typeof v === 'string' && isIdLike(v));
  if (id !== undefined) each(object, id);
  for (const v of Object.values(object)) if (typeof v === 'object') visit(v, each);
}
