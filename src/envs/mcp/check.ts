import type { ToolCall } from './action-syntax.ts';

/**
 * How a text must match, one kind per object:
 * - `{ exact }`: equal once both are trimmed (case counts);
 * - `{ contains }`: holds the string anywhere, ignoring case;
 * - `{ regex, flags? }`: a JavaScript regular expression finds a match (`flags` e.g. `"i"`).
 */
export type TextMatch =
  | { exact: string }
  | { contains: string }
  | { regex: string; flags?: string };

/**
 * A task's success check, run when the agent answers. Every part given must hold (at least one
 * is): the answer text matches `answer`, and the result text of calling `call.tool` with
 * `call.arguments` then matches `call.expect` (to read the server's state, say).
 */
export interface SuccessCheck {
  answer?: TextMatch;
  call?: ToolCall & { expect: TextMatch };
}

/** True when `text` matches. */
export function matchesText(text: string, match: TextMatch): boolean {
  if ('exact' in match) return text.trim() === match.exact.trim();
  if ('contains' in match) return text.toLowerCase().includes(match.contains.toLowerCase());
  return new RegExp(match.regex, match.flags).test(text);
}

/** Why a regex in a check cannot be used, or undefined when it compiles. */
export function regexProblem(match: TextMatch): string | undefined {
  if (!('regex' in match)) return undefined;
  try {
    new RegExp(match.regex, match.flags);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
