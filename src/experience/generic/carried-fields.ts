/**
 * Fields a new page repeats from the page before it (`breakfast: no` on a review of the form one
 * filled): where a real step's next page repeats a field of its state as it was, this episode's
 * page repeats this episode's value of that field. Fields are `label: value` fragments, at a
 * line's start or after a `,` `;` `·` `|` or `(`, the value running to the line's end or the next
 * `,` `;` `·` `|`; a label that occurs twice on a page is not a field (a hint such as
 * `nights: 1–7` beside `nights: 3`).
 */

const FIELD = /(^|[\n,;·|(]\s*)(\p{L}[\p{L} ]{0,23}?):[ \t]*([^\n,;·|]*[^\s,;·|])/gu;

/** The page's fields, label (lower-cased) → value; labels that occur more than once left out. */
export function fieldsOf(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  const twice = new Set<string>();
  for (const m of text.matchAll(FIELD)) {
    const label = (m[2] as string).toLowerCase();
    if (fields.has(label)) twice.add(label);
    fields.set(label, m[3] as string);
  }
  for (const label of twice) fields.delete(label);
  return fields;
}

/**
 * `composed` (the real next page `theirNext`, adapted) with each field the real step carried
 * over from its state `theirState` unchanged set to this episode's value of it in `ourState`.
 */
export function carryFields(
  composed: string,
  theirState: string,
  theirNext: string,
  ourState: string,
): string {
  const before = fieldsOf(theirState);
  const after = fieldsOf(theirNext);
  const ours = fieldsOf(ourState);
  const shown = fieldsOf(composed);
  let text = composed;
  for (const [label, value] of after) {
    const mine = ours.get(label);
    if (before.get(label) !== value || mine === undefined || mine === value) continue;
    if (shown.get(label) !== value) continue;
    text = text.replace(FIELD, (whole, lead: string, name: string, v: string) =>
      name.toLowerCase() === label && v === value ? `${lead}${name}: ${mine}` : whole,
    );
  }
  return text;
}
