/**
 * WebArena's id-based action space as a typed value, and the one parser from an agent's text to it.
 * Parsing never touches a page: an action that does not parse is rejected before anything runs.
 */

/** One browser action, after WebArena's `create_id_based_action`. */
export type WebAction =
  | { kind: 'click'; id: number }
  | { kind: 'hover'; id: number }
  /** Types `text` into the element (replacing its content), then presses Enter if `pressEnter`. */
  | { kind: 'type'; id: number; text: string; pressEnter: boolean }
  /** A key or chord in Playwright's spelling, e.g. `Control+a`, `Enter`. */
  | { kind: 'press'; keys: string }
  | { kind: 'scroll'; direction: 'up' | 'down' }
  | { kind: 'new_tab' }
  | { kind: 'tab_focus'; index: number }
  | { kind: 'close_tab' }
  | { kind: 'goto'; url: string }
  | { kind: 'go_back' }
  | { kind: 'go_forward' }
  /** Ends the episode; `answer` is empty when none was given (`stop` alone, as WebArena allows). */
  | { kind: 'stop'; answer: string };

export type ParsedAction = { ok: true; action: WebAction } | { ok: false; reason: string };

/** WebArena's chain-of-thought prompts end their answer with this phrase. */
export const ANSWER_PHRASE = 'In summary, the next action I will perform is';

const USAGE =
  'write one of: click [id], type [id] [text] [0|1], hover [id], press [key_comb], scroll [down|up], ' +
  'new_tab, tab_focus [index], close_tab, goto [url], go_back, go_forward, stop [answer]';

/** Key names Playwright accepts besides single characters (case-insensitive aliases included). */
const KEY_NAMES = new Map<string, string>(
  [
    'Enter',
    'Tab',
    'Backspace',
    'Delete',
    'Escape',
    'ArrowUp',
    'ArrowDown',
    'ArrowLeft',
    'ArrowRight',
    'Home',
    'End',
    'PageUp',
    'PageDown',
    'Insert',
    'Space',
    'Control',
    'Shift',
    'Alt',
    'Meta',
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ].map((key) => [key.toLowerCase(), key]),
);
for (const [alias, key] of [
  ['ctrl', 'Control'],
  ['cmd', 'Control'],
  ['command', 'Control'],
  ['option', 'Alt'],
  ['esc', 'Escape'],
  ['return', 'Enter'],
  ['del', 'Delete'],
  ['up', 'ArrowUp'],
  ['down', 'ArrowDown'],
  ['left', 'ArrowLeft'],
  ['right', 'ArrowRight'],
] as const) {
  KEY_NAMES.set(alias, key);
}

/**
 * The action in an agent's text. Accepts WebArena's forms: a bare action (`click [12]`), one in
 * backticks or a ``` fence, and chain-of-thought text ending in "In summary, the next action I
 * will perform is ```click [12]```" (the fence after that phrase wins). `type` without its last
 * flag presses Enter (WebArena's default); `scroll down` without brackets is accepted.
 */
export function parseWebAction(text: string): ParsedAction {
  const command = extractCommand(text);
  if (command === '') return { ok: false, reason: `no action given; ${USAGE}.` };
  const verb = (command.includes('[') ? command.split('[')[0] : command.split(/\s+/)[0]) ?? '';
  const fail = (why: string): ParsedAction => ({ ok: false, reason: `${why}; ${USAGE}.` });
  switch (verb.trim().toLowerCase()) {
    case 'click':
    case 'hover': {
      const kind = verb.trim().toLowerCase() as 'click' | 'hover';
      const match = /^\w+ ?\[(\d+)\]\s*$/i.exec(command);
      if (!match) return fail(`"${command}" is not ${kind} [id] with a numeric id`);
      return { ok: true, action: { kind, id: Number(match[1]) } };
    }
    case 'type': {
      const flagged = /\[[01]\]\s*$/.test(command) ? command : `${command} [1]`;
      const match = /^type ?\[(\d+)\] ?\[(.*)\] ?\[([01])\]\s*$/is.exec(flagged);
      if (!match) return fail(`"${command}" is not type [id] [text] [0|1]`);
      const pressEnter = match[3] === '1';
      return {
        ok: true,
        action: { kind: 'type', id: Number(match[1]), text: match[2] as string, pressEnter },
      };
    }
    case 'press': {
      const match = /^press ?\[(.+)\]\s*$/i.exec(command);
      if (!match) return fail(`"${command}" is not press [key_comb]`);
      const keys = normalizeKeys(match[1] as string);
      if (!keys.ok) return fail(keys.reason);
      return { ok: true, action: { kind: 'press', keys: keys.keys } };
    }
    case 'scroll': {
      const match = /^scroll ?\[?\s*(up|down)\s*\]?\s*$/i.exec(command);
      if (!match) return fail(`"${command}" is not scroll [down] or scroll [up]`);
      const direction = (match[1] as string).toLowerCase() as 'up' | 'down';
      return { ok: true, action: { kind: 'scroll', direction } };
    }
    case 'tab_focus': {
      const match = /^tab_focus ?\[(\d+)\]\s*$/i.exec(command);
      if (!match) return fail(`"${command}" is not tab_focus [index]`);
      return { ok: true, action: { kind: 'tab_focus', index: Number(match[1]) } };
    }
    case 'goto': {
      const match = /^goto ?\[(.+)\]\s*$/i.exec(command);
      if (!match) return fail(`"${command}" is not goto [url]`);
      return { ok: true, action: { kind: 'goto', url: (match[1] as string).trim() } };
    }
    case 'stop': {
      const match = /^stop ?\[(.*)\]\s*$/is.exec(command);
      if (!match && command.trim().toLowerCase() !== 'stop')
        return fail(`"${command}" is not stop [answer]`);
      return { ok: true, action: { kind: 'stop', answer: (match?.[1] ?? '').trim() } };
    }
    case 'new_tab':
    case 'close_tab':
    case 'go_back':
    case 'go_forward': {
      const kind = verb.trim().toLowerCase() as 'new_tab' | 'close_tab' | 'go_back' | 'go_forward';
      if (!new RegExp(`^${kind}\\s*(\\[\\s*\\])?\\s*$`, 'i').test(command)) {
        return fail(`"${command}": ${kind} takes no argument`);
      }
      return { ok: true, action: { kind } };
    }
    default:
      return fail(`"${command}" is not an action`);
  }
}

/** The action text in an agent's answer: after the summary phrase, inside backticks, trimmed. */
function extractCommand(text: string): string {
  const phrase = text.lastIndexOf(ANSWER_PHRASE);
  const tail = phrase >= 0 ? text.slice(phrase + ANSWER_PHRASE.length) : text;
  const fenced = /```(?:[a-z]*\n)?([\s\S]*?)```/.exec(tail) ?? /`([^`]+)`/.exec(tail);
  // A sentence's full stop after the action ("… is ```click [12]```." or "go_back.") is not part of it.
  return (fenced ? (fenced[1] as string) : tail).trim().replace(/\.+$/, '').trim();
}

/** `ctrl+A` → `Control+a`; each part must be a single character or a key name. */
function normalizeKeys(combo: string): { ok: true; keys: string } | { ok: false; reason: string } {
  // `Control++` is Control and the plus key.
  const plusKey = /.\+\+$/.test(combo.trim());
  const parts = (plusKey ? combo.trim().slice(0, -2) : combo.trim()).split('+');
  const keys: string[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const named = KEY_NAMES.get(part.toLowerCase());
    if (named) keys.push(named);
    else if ([...part].length === 1) keys.push(parts.length > 1 ? part.toLowerCase() : part);
    else return { ok: false, reason: `"${part}" is not a key (e.g. Enter, Tab, Control+a)` };
  }
  if (plusKey) keys.push('+');
  return { ok: true, keys: keys.join('+') };
}
