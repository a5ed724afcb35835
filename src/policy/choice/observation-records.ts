/**
 * An observation read as records of values, whatever its format: a JSON tool result's objects
 * (an order with its id, status, items and total), or a text page's clauses (a line, or a part
 * of one between semicolons: `[R-35] Willow Lodge · double room · $204 total`, `north through the
 * birch door (pewter lock, locked)`). A policy asks of a value: which records show it, under which
 * field, at which place in its list, and what else those records say.
 */

/** A value a record shows, under its field (`status`, `total`, the word before it on a page). */
export interface Field {
  /** Lower-cased; '' when the value has no name (a bracketed label, a list element). */
  key: string;
  /** As shown (case kept, so it can fill an action). */
  value: string;
  /** Its place in its list (a JSON array, a page's bracketed labels), 0 for the first or only. */
  rank: number;
}

/** One record: its text lower-cased (a JSON object's values, nested ones too) and its fields. */
export interface ObservationRecord {
  text: string;
  fields: Field[];
}

const memo = new Map<string, ObservationRecord[]>();
const MEMO_SIZE = 2048;

/** The records of an observation's text (computed once per distinct text, most recent kept). */
export function recordsOf(text: string): ObservationRecord[] {
  const known = memo.get(text);
  if (known) return known;
  const records = jsonRecords(text) ?? textRecords(text);
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value as string);
  memo.set(text, records);
  return records;
}

/** Whether `text` (lower-cased) holds `phrase` (lower-cased) as whole words. */
export function holdsPhrase(text: string, phrase: string): boolean {
  if (phrase.length === 0) return false;
  let at = text.indexOf(phrase);
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + phrase.length];
    if ((!before || !/[\w$]/.test(before)) && (!after || !/\w/.test(after))) return true;
    at = text.indexOf(phrase, at + 1);
  }
  return false;
}

function jsonRecords(text: string): ObservationRecord[] | undefined {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const records: ObservationRecord[] = [];
  /** Adds the records of `node` (its rank in its list) and returns its values' text. */
  const visit = (node: unknown, rank: number): string => {
    if (Array.isArray(node)) return node.map((item, i) => visit(item, i)).join(' ');
    if (node === null || typeof node !== 'object') return scalarText(node);
    const record: ObservationRecord = { text: '', fields: [] };
    records.push(record);
    const parts: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      const field = key.toLowerCase();
      if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
        value.forEach((v, i) => {
          record.fields.push({ key: field, value: scalarText(v), rank: i });
        });
        parts.push(value.map(scalarText).join(' '));
      } else if (value !== null && typeof value === 'object') {
        parts.push(visit(value, 0));
      } else {
        record.fields.push({ key: field, value: scalarText(value), rank });
        parts.push(scalarText(value));
      }
    }
    record.text = parts.join(' ').toLowerCase();
    return record.text;
  };
  visit(data, 0);
  return records;
}

function scalarText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/**
 * Values a page shows, in the order a clause's first field is looked for (a record is about its
 * first field): bracketed labels, `key: value` pairs, ids, dates, numbers and amounts, names.
 */
const TEXT_VALUES = [
  /\[([^\]]+)\]/g,
  /\b[A-Za-z][\w ]{0,20}?:\s*([^,;·:[\]\n]+)/g,
  /\b([A-Za-z]+-\d+)\b/g,
  /\b([A-Z][a-z]+ \d{1,2})\b/g,
  /(?<![\w-])(\$?\d[\d,]*(?:\.\d+)?(?:-\d+)?)/g,
  /\b([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*)/g,
];

function textRecords(text: string): ObservationRecord[] {
  const records: ObservationRecord[] = [];
  let label = 0;
  for (const line of text.split('\n')) {
    for (const clause of line.split(';')) {
      if (clause.trim().length === 0) continue;
      const fields: Field[] = [];
      const seen = new Set<string>();
      for (const pattern of TEXT_VALUES) {
        for (const match of clause.matchAll(pattern)) {
          const value = (match[1] as string).trim();
          const at = (match.index ?? 0) + (match[0] as string).indexOf(value);
          if (value.length === 0 || seen.has(value)) continue;
          seen.add(value);
          const bracketed = pattern === TEXT_VALUES[0];
          fields.push({
            key: bracketed ? '' : keyBefore(clause, at),
            value,
            rank: bracketed ? label++ : 0,
          });
        }
      }
      records.push({ text: clause.toLowerCase().trim(), fields });
    }
  }
  return records;
}

/** The name a page gives the value at `at`: the words before a colon, or the word before it. */
function keyBefore(clause: string, at: number): string {
  const before = clause.slice(0, at);
  const named = /([A-Za-z][\w ]{0,20}?):\s*$/.exec(before);
  if (named) return (named[1] as string).trim().toLowerCase();
  return /([A-Za-z]+)\W*$/.exec(before)?.[1]?.toLowerCase() ?? '';
}
