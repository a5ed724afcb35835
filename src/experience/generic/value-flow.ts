import { containsValue, lineKey } from './text.ts';

/**
 * Where a step's values stood before and after it: for each of the action's values, the lines of
 * the page's frame (the line kinds most pages have) that showed it before the step and after it,
 * and whether the rest of the next page (the step's own message) named it. A real step that
 * takes a thing moves its name from one frame line to another and names it in its message; one
 * that moves names its way in its message, wherever the new page's frame stands. The buffer's
 * real steps of a template show which such flows its steps have (`TemplateStats.flows`); a
 * composed step whose values flowed as no real step of its template's did (a drop that left the
 * thing held, a message naming another thing than the action's) is a composition the real env
 * would not have made, and an ending reached through it is not vouched for.
 */

/**
 * The flow of a step from `before` to `after` by an action with `values` (see the module's
 * description): per value, its frame line keys as `key=<before><after>` (1 shown, 0 not) where
 * it was shown in either, sorted, then `msg=<0|1>`; the values' flows joined by ` | `. A step
 * with no values has the empty flow.
 */
export function valueFlow(
  before: string,
  after: string,
  values: readonly string[],
  isFrame: (key: string) => boolean,
): string {
  if (values.length === 0) return '';
  const a = framed(before, isFrame);
  const b = framed(after, isFrame);
  return values
    .map((value) => {
      const keys = new Set<string>();
      for (const [key, text] of [...a.frame, ...b.frame])
        if (containsValue(text, value)) keys.add(key);
      const shown = (lines: Map<string, string>, key: string) =>
        containsValue(lines.get(key) ?? '', value) ? '1' : '0';
      const parts = [...keys]
        .sort()
        .map((key) => `${key}=${shown(a.frame, key)}${shown(b.frame, key)}`);
      parts.push(`msg=${containsValue(b.rest, value) ? 1 : 0}`);
      return parts.join(' ');
    })
    .join(' | ');
}

/** A page's frame lines by key (lines of one key joined), and the rest of its lines. */
function framed(
  text: string,
  isFrame: (key: string) => boolean,
): { frame: Map<string, string>; rest: string } {
  const frame = new Map<string, string>();
  const rest: string[] = [];
  for (const line of text.split('\n')) {
    const key = lineKey(line);
    if (key.length > 0 && isFrame(key)) frame.set(key, `${frame.get(key) ?? ''}\n${line}`);
    else rest.push(line);
  }
  return { frame, rest: rest.join('\n') };
}
