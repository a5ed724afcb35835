/**
 * How long an action may be where a policy's actions arrive unchecked (served envs, synthetic
 * envs), and how an action is quoted back. A policy in training can emit anything: one 1 MB
 * action made 1–2 MB prompts, 15 MB of buffer for one episode and a stalled server.
 */

/**
 * Longest action served and synthetic envs take by default, in characters: far above any real
 * action (a WebArena `type [id] [text]` with a paragraph stays well under it).
 */
export const DEFAULT_MAX_ACTION_CHARS = 2_000;

/** Characters of an action quoted back in a message or an env's `info`. */
export const QUOTED_ACTION_CHARS = 120;

/**
 * `action` in double quotes, fit to put in a message or `info`: whole when short, else its first
 * {@link QUOTED_ACTION_CHARS} characters and its length, so no action is ever echoed whole.
 */
export function quoteAction(action: string): string {
  if (action.length <= QUOTED_ACTION_CHARS) return `"${action}"`;
  return `"${action.slice(0, QUOTED_ACTION_CHARS)}…" (${action.length.toLocaleString('en-US')} characters)`;
}

/**
 * Why `action` is refused for its length (the `info.invalidAction` of the step that refuses it),
 * or undefined when it is within `max` characters. `setting` names where the limit is set, e.g.
 * `--max-action-chars`.
 */
export function overlongAction(action: string, max: number, setting: string): string | undefined {
  if (action.length <= max) return undefined;
  return `the action is ${action.length.toLocaleString('en-US')} characters, over the limit of ${max.toLocaleString('en-US')} (${setting}); nothing was done: ${quoteAction(action)}. Send a shorter action.`;
}
