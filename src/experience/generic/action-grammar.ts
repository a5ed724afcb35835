/**
 * The action grammar, learnt from the actions of the buffer: each action is a template with
 * slots and the slot values it was filled with. Three forms are read:
 * - calls with JSON arguments, `tool({"arg": 1})` → `tool({"arg":<1>})`;
 * - bracketed arguments, `verb[value]`, `verb [a] [b]`, `verb[key=value]` → `verb[<1>]`,
 *   `verb [<1>] [<2>]`, `verb[key=<1>]`;
 * - plain words, `verb word … connector word …`: the first word is the verb, words that follow
 *   this verb in nearly all of its actions (connectors) are literal, the runs between them slots.
 */

/** An action read as a template and the values of its slots (`<1>`, `<2>` … in order). */
export interface ParsedAction {
  template: string;
  values: string[];
}

/** A word follows its verb in at least this share of the verb's actions to be a connector. */
const CONNECTOR_SHARE = 0.8;
/** … and in at least this many of them. */
const CONNECTOR_MIN = 3;

const CALL = /^\s*([\p{L}_][\p{L}\p{N}_.-]*)\s*\(\s*(\{[\s\S]*\})\s*\)\s*$/u;
const BRACKETS = /^([^[\]]*?)(\s*\[[^\]]*\])+\s*$/;
const KEYED = /^([\p{L}_][\p{L}\p{N}_ -]*?)\s*=\s*([\s\S]*)$/u;

/** The grammar of one env's actions; {@link ActionGrammar.learn} it from the buffer's actions. */
export class ActionGrammar {
  private readonly parsed = new Map<string, ParsedAction>();

  private constructor(
    /** Verb → its connector words. */
    private readonly connectors: ReadonlyMap<string, ReadonlySet<string>>,
  ) {}

  /** The grammar of these actions (every action the buffer's episodes took or listed). */
  static learn(actions: Iterable<string>): ActionGrammar {
    const verbs = new Map<string, { total: number; words: Map<string, number> }>();
    for (const action of new Set(actions)) {
      if (CALL.test(action) || BRACKETS.test(action)) continue;
      const [verb, ...rest] = action.trim().split(/\s+/);
      if (!verb || rest.length < 2) continue;
      const stats = verbs.get(verb) ?? { total: 0, words: new Map<string, number>() };
      stats.total++;
      for (const w of new Set(rest)) stats.words.set(w, (stats.words.get(w) ?? 0) + 1);
      verbs.set(verb, stats);
    }
    const connectors = new Map<string, Set<string>>();
    for (const [verb, { total, words }] of verbs) {
      const literal = [...words]
        .filter(([, n]) => n >= CONNECTOR_MIN && n / total >= CONNECTOR_SHARE)
        .map(([w]) => w);
      if (literal.length > 0) connectors.set(verb, new Set(literal));
    }
    return new ActionGrammar(connectors);
  }

  /** The template and slot values of `action`. */
  parse(action: string): ParsedAction {
    const known = this.parsed.get(action);
    if (known) return known;
    const parsed = parseCall(action) ?? parseBrackets(action) ?? this.parseWords(action);
    if (this.parsed.size > 50_000) this.parsed.clear();
    this.parsed.set(action, parsed);
    return parsed;
  }

  private parseWords(action: string): ParsedAction {
    const [verb, ...rest] = action.trim().split(/\s+/);
    if (!verb || rest.length === 0) return { template: action.trim(), values: [] };
    const literal = this.connectors.get(verb) ?? new Set<string>();
    const parts: string[] = [verb];
    const values: string[] = [];
    let run: string[] = [];
    const close = () => {
      if (run.length === 0) return;
      values.push(run.join(' '));
      parts.push(`<${values.length}>`);
      run = [];
    };
    for (const w of rest) {
      if (literal.has(w)) {
        close();
        parts.push(w);
      } else run.push(w);
    }
    close();
    return { template: parts.join(' '), values };
  }
}

/** `template` with its slots filled by `values` in order. */
export function fill(template: string, values: readonly string[]): string {
  return template.replace(/<(\d+)>/g, (m, n: string) => values[Number(n) - 1] ?? m);
}

/** True when `actions` lists `action`, as it is or as a template with one free-text slot. */
export function isListed(actions: readonly string[], action: string): boolean {
  return actions.some((a) => {
    if (a === action) return true;
    const slot = /<[^<>]+>/.exec(a);
    if (!slot) return false;
    const before = a.slice(0, slot.index);
    const after = a.slice(slot.index + slot[0].length);
    return (
      action.startsWith(before) &&
      action.endsWith(after) &&
      action.length > before.length + after.length
    );
  });
}

function parseCall(action: string): ParsedAction | undefined {
  const match = CALL.exec(action);
  if (!match) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(match[2] as string);
  } catch {
    return undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const values: string[] = [];
  const slots = Object.entries(args as Record<string, unknown>).map(([key, value]) => {
    values.push(typeof value === 'string' ? value : JSON.stringify(value));
    return `${JSON.stringify(key)}:<${values.length}>`;
  });
  return { template: `${match[1]}({${slots.join(',')}})`, values };
}

function parseBrackets(action: string): ParsedAction | undefined {
  if (!BRACKETS.test(action)) return undefined;
  const values: string[] = [];
  const template = action.replace(/\[([^\]]*)\]/g, (_, inside: string) => {
    const keyed = KEYED.exec(inside);
    values.push(keyed ? (keyed[2] as string) : inside);
    return keyed ? `[${keyed[1]}=<${values.length}>]` : `[<${values.length}>]`;
  });
  return { template, values };
}
