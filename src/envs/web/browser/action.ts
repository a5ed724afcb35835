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
  /**
   * Ends the episode; `answer` is the bracket's text as written (the evaluator cleans it), empty
   * when none was given (`stop` alone, as WebArena allows).
   */
  | { kind: 'stop'; answer: string };

/** A parsed action, or why the text is not one. */
export type ParsedAction = { ok: true; action: WebAction } | { ok: false; reason: string };

const USAGE =
  'write one of: click [id], type [id] [text] [0|1], hover [id], press [key_comb], scroll [down|up], ' +
  'new_tab, tab_focus [index], close_tab, goto [url], go_back, go_forward, stop [answer]';

/**
 * Key names Playwright accepts besides single characters, looked up case-insensitively (WebArena
 * maps a few lower-case names and passes the rest as written, which Playwright refuses unless
 * spelled its way).
 */
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
    'ControlOrMeta',
    'AltGraph',
    'CapsLock',
    'NumLock',
    'ScrollLock',
    'Pause',
    'PrintScreen',
    'ContextMenu',
    'Backquote',
    'Minus',
    'Equal',
    'Backslash',
    'BracketLeft',
    'BracketRight',
    'Semicolon',
    'Quote',
    'Comma',
    'Period',
    'Slash',
    'NumpadAdd',
    'NumpadSubtract',
    'NumpadMultiply',
    'NumpadDivide',
    'NumpadDecimal',
    'NumpadEnter',
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    ...Array.from({ length: 10 }, (_, i) => `Digit${i}`),
    ...Array.from({ length: 10 }, (_, i) => `Numpad${i}`),
    ...Array.from({ length: 26 }, (_, i) => `Key${String.fromCharCode(65 + i)}`),
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
 * The action in an agent's text, read by WebArena's rules (`create_id_based_action`, and its
 * agent's `extract_action` for answers with a fence). Text holding a ``` fence is read from its
 * first fenced block, whatever comes before or after (WebArena's chain-of-thought answers end
 * "In summary, the next action I will perform is ```click [12]```"); text without one is the
 * action itself. The verb is what comes before the first `[` (or the first word), exactly and in
 * lower case; its arguments are searched for in the rest, which may go on (WebArena's own action
 * history writes `click [12] where [12] is link 'Home'`). Bracketed text never spans lines: `type`
 * with a line break in its text is refused and `stop` then has no answer, as in WebArena. `type`
 * without its last flag presses Enter; `scroll down` needs no brackets.
 *
 * Departures, each for a reason (docs/web-observation.md lists them): `type [id] []` clears the
 * field (our `type` replaces the content; WebArena, which appends key by key, refuses empty text);
 * `press` takes key aliases (`Ctrl`, `Cmd`, `Esc`, arrows) that WebArena's Playwright refuses at
 * run time, and an unknown key is refused here rather than when it runs; no text at all is refused
 * where WebArena's parser raises an IndexError.
 */
export function parseWebAction(text: string): ParsedAction {
  const fail = (why: string): ParsedAction => ({ ok: false, reason: `${why}; ${USAGE}.` });
  const command = extractCommand(text);
  if (command === '') return fail('no action given');
  const verb = command.includes('[')
    ? (command.split('[')[0] as string).trim()
    : (command.split(/\s+/)[0] as string);
  // WebArena's `.` stops at a line break (and only there): `[^\n]` below.
  switch (verb) {
    case 'click':
    case 'hover': {
      const match = new RegExp(`${verb} ?\\[(\\d+)\\]`).exec(command);
      if (!match) return fail(`"${command}" is not ${verb} [id] with a numeric id`);
      return { ok: true, action: { kind: verb, id: Number(match[1]) } };
    }
    case 'type': {
      const flagged = /\[[01]\]$/.test(command) ? command : `${command} [1]`;
      // `*`, not WebArena's `+`: empty text clears the field (see above).
      const match = /type ?\[(\d+)\] ?\[([^\n]*)\] ?\[(\d+)\]/.exec(flagged);
      if (!match) return fail(`"${command}" is not type [id] [text] [0|1] on one line`);
      const pressEnter = match[3] === '1';
      return {
        ok: true,
        action: { kind: 'type', id: Number(match[1]), text: match[2] as string, pressEnter },
      };
    }
    case 'press': {
      const match = /press ?\[([^\n]+)\]/.exec(command);
      if (!match) return fail(`"${command}" is not press [key_comb]`);
      const keys = normalizeKeys(match[1] as string);
      if (!keys.ok) return fail(keys.reason);
      return { ok: true, action: { kind: 'press', keys: keys.keys } };
    }
    case 'scroll': {
      const match = /scroll ?\[?(up|down)\]?/.exec(command);
      if (!match) return fail(`"${command}" is not scroll [down] or scroll [up]`);
      return { ok: true, action: { kind: 'scroll', direction: match[1] as 'up' | 'down' } };
    }
    case 'tab_focus': {
      const match = /tab_focus ?\[(\d+)\]/.exec(command);
      if (!match) return fail(`"${command}" is not tab_focus [index]`);
      return { ok: true, action: { kind: 'tab_focus', index: Number(match[1]) } };
    }
    case 'goto': {
      const match = /goto ?\[([^\n]+)\]/.exec(command);
      if (!match) return fail(`"${command}" is not goto [url]`);
      return { ok: true, action: { kind: 'goto', url: match[1] as string } };
    }
    case 'stop': {
      const match = /stop ?\[([^\n]+)\]/.exec(command);
      return { ok: true, action: { kind: 'stop', answer: match?.[1] ?? '' } };
    }
    case 'new_tab':
    case 'close_tab':
    case 'go_back':
    case 'go_forward':
      return { ok: true, action: { kind: verb } };
    default:
      return fail(`"${command}" is not an action${hint(verb)}`);
  }
}

/** Why a verb that is almost one was not taken. */
function hint(verb: string): string {
  if (VERBS.has(verb.toLowerCase())) return ` (verbs are lower case: ${verb.toLowerCase()})`;
  if (/^[`'"]/.test(verb)) return ' (write the action bare or in a ``` fence)';
  return '';
}

const VERBS = new Set([
  'click',
  'hover',
  'type',
  'press',
  'scroll',
  'new_tab',
  'tab_focus',
  'close_tab',
  'goto',
  'go_back',
  'go_forward',
  'stop',
]);

/** The action text of an answer: its first ``` fenced block if it has one, else all of it; trimmed. */
function extractCommand(text: string): string {
  const fenced = /```([\s\S]*?)```/.exec(text);
  return (fenced ? (fenced[1] as string) : text).trim();
}

/**
 * `ctrl+a` → `Control+a`: each part a single character (kept as written, as WebArena does) or a
 * key name in Playwright's spelling.
 */
function normalizeKeys(combo: string): { ok: true; keys: string } | { ok: false; reason: string } {
  // `Control++` is Control and the plus key.
  const plusKey = /.\+\+$/.test(combo.trim());
  const parts = (plusKey ? combo.trim().slice(0, -2) : combo.trim()).split('+');
  const keys: string[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const named = KEY_NAMES.get(part.toLowerCase());
    if (named) keys.push(named);
    else if ([...part].length === 1) keys.push(part);
    else return { ok: false, reason: `"${part}" is not a key (e.g. Enter, Tab, Control+a)` };
  }
  if (plusKey) keys.push('+');
  return { ok: true, keys: keys.join('+') };
}
