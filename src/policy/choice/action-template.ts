import { isActionTemplate } from '../../core/types.ts';

/** One value an action carries, and the field it sets when it reads `field=value`. */
export interface Slot {
  value: string;
  field?: string;
}

/**
 * An action read as a template and the values in its slots: `get_order[O-2217]` is
 * `get_order[<>]` with `O-2217`, `set[town=Marrowby]` is `set[town=<>]` with `Marrowby` (field
 * `town`), `unlock birch door with pewter key` is `unlock <> with <>` with `birch door` and
 * `pewter key`, `look` is `look` with none. Actions of one template do the same thing to
 * different things, which is what a policy can learn across tasks.
 */
export interface ParsedAction {
  /** The leading word, lower-cased. */
  verb: string;
  template: string;
  slots: Slot[];
  /** The placeholder's name when the action fills an admissible template (`name`, `text`). */
  placeholder?: string;
}

/** Words that join a command's parts (`go to …`, `… with …`): kept in the template. */
const CONNECTIVES = new Set([
  'to',
  'with',
  'from',
  'in',
  'on',
  'into',
  'onto',
  'at',
  'using',
  'in/on',
  'for',
  'by',
]);

const BRACKETED = /^\s*([a-z_][\w-]*)\s*((?:\[[^\]]*\]\s*)+)$/i;

/**
 * Reads `action` as a template and slot values. When it fills one of `templates` (the
 * observation's `<placeholder>` actions), the template is that one and the slot is what fills
 * the placeholder, whatever words the value holds; otherwise the action's own syntax decides:
 * each `[…]` of `verb[…]` is a slot (a `field=value` one keeps its field in the template), and a
 * command's words between its verb and the connectives (`to`, `with`, `from`, …) are slots.
 */
export function parseAction(action: string, templates: readonly string[] = []): ParsedAction {
  for (const template of templates) {
    const filled = fillOf(action, template);
    if (filled) return filled;
  }
  const text = action.trim();
  const bracketed = BRACKETED.exec(text);
  if (bracketed) {
    const verb = (bracketed[1] as string).toLowerCase();
    const slots: Slot[] = [];
    let template = verb;
    for (const [, inside] of (bracketed[2] as string).matchAll(/\[([^\]]*)\]/g)) {
      const pair = /^\s*([a-z_][\w ]*?)\s*=\s*(.*)$/i.exec(inside as string);
      const field = pair?.[1]?.toLowerCase();
      const value = (pair ? (pair[2] as string) : (inside as string)).trim();
      template += field === undefined ? '[<>]' : `[${field}=<>]`;
      slots.push({ value, ...(field !== undefined && { field }) });
    }
    return { verb, template, slots };
  }
  const tokens = text.split(/\s+/).filter((t) => t.length > 0);
  const verb = (tokens[0] ?? '').toLowerCase();
  const parts = [verb];
  const slots: Slot[] = [];
  let value: string[] = [];
  const close = () => {
    if (value.length === 0) return;
    slots.push({ value: value.join(' ') });
    parts.push('<>');
    value = [];
  };
  for (const token of tokens.slice(1)) {
    if (CONNECTIVES.has(token.toLowerCase())) {
      close();
      parts.push(token.toLowerCase());
    } else value.push(token);
  }
  close();
  return { verb, template: parts.join(' '), slots };
}

/** The placeholders of a template in order, without their brackets (`find_customer[<name>]` → `name`). */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(/<([^<>]*)>/g)].map((m) => (m[1] as string).trim().toLowerCase());
}

/** `action` read as `template` filled in (a single placeholder), or undefined when it is not. */
function fillOf(action: string, template: string): ParsedAction | undefined {
  if (!isActionTemplate(template)) return undefined;
  const [placeholder, ...more] = placeholdersOf(template);
  if (placeholder === undefined || more.length > 0) return undefined;
  const at = template.search(/<[^<>]*>/);
  const before = template.slice(0, at);
  const after = template.slice(template.indexOf('>', at) + 1);
  if (
    action.length <= before.length + after.length ||
    !action.startsWith(before) ||
    !action.endsWith(after)
  )
    return undefined;
  const value = action.slice(before.length, action.length - after.length);
  if (isActionTemplate(value)) return undefined;
  const parsed = parseAction(template);
  const field = parsed.slots.find((s) => /^<[^<>]*>$/.test(s.value))?.field;
  return {
    verb: parsed.verb,
    template: parsed.template,
    slots: [{ value: value.trim(), ...(field !== undefined && { field }) }],
    placeholder,
  };
}
