/**
 * WebArena's action syntax (public: `click [id]`, `type [id] [text] [1]`, `stop [answer]` …),
 * parsed into a small typed action. Written from the public format, independently of the browser
 * env's own parser.
 */

export type WebAction =
  | { kind: 'click' | 'hover'; id: string }
  /** `enter`: Enter is pressed after typing (WebArena's default), which submits the form. */
  | { kind: 'type'; id: string; text: string; enter: boolean }
  | { kind: 'press'; key: string }
  | { kind: 'scroll'; direction: 'up' | 'down' }
  | { kind: 'new_tab' | 'close_tab' | 'go_back' | 'go_forward' }
  | { kind: 'tab_focus'; index: number }
  | { kind: 'goto'; url: string }
  | { kind: 'stop'; answer: string };

const TYPE_ENTER = /^type ?\[([^\]\s]+)\] ?\[(.*)\] ?\[([01])\]$/s;
const TYPE = /^type ?\[([^\]\s]+)\] ?\[(.*)\]$/s;
const ONE_ARG = /^([a-z_]+) ?\[(.*)\]$/s;

/** The typed action of `text`, or undefined when it follows no WebArena action syntax. */
export function parseWebAction(text: string): WebAction | undefined {
  const action = text.trim();
  const typed = TYPE_ENTER.exec(action) ?? TYPE.exec(action);
  if (typed) {
    return {
      kind: 'type',
      id: typed[1] as string,
      text: typed[2] as string,
      enter: typed[3] !== '0',
    };
  }
  if (/^(new_tab|close_tab|go_back|go_forward)$/.test(action))
    return { kind: action as 'new_tab' | 'close_tab' | 'go_back' | 'go_forward' };
  const one = ONE_ARG.exec(action);
  if (!one) return undefined;
  const [, verb, arg] = one as unknown as [string, string, string];
  switch (verb) {
    case 'click':
    case 'hover':
      return /^\S+$/.test(arg) ? { kind: verb, id: arg } : undefined;
    case 'press':
      return { kind: 'press', key: arg };
    case 'scroll':
      return arg === 'up' || arg === 'down' ? { kind: 'scroll', direction: arg } : undefined;
    case 'tab_focus':
      return /^\d+$/.test(arg) ? { kind: 'tab_focus', index: Number(arg) } : undefined;
    case 'goto':
      return { kind: 'goto', url: arg };
    case 'stop':
      return { kind: 'stop', answer: arg };
    default:
      return undefined;
  }
}

/** The element id an action targets, if any. */
export function targetId(action: WebAction): string | undefined {
  return 'id' in action ? action.id : undefined;
}
