/**
 * How long an observation may be where it comes from outside (an MCP, OpenEnv or AgentGym
 * server), as `action-limit.ts` bounds actions. One MCP tool answering 4 MB made 21 MB of JSONL
 * and a 10 MB buffer in 12 steps; no part of dreamgym reads more than 6,000 characters of one.
 */

/**
 * Longest observation text kept from a server's envs by default, in characters: over three
 * times what the LLM policy's and experience model's prompts read of one (6,000).
 */
export const DEFAULT_MAX_OBSERVATION_CHARS = 20_000;

/** Where the observation limit is set, as messages name it. */
export const OBSERVATION_LIMIT_SETTING = '--max-observation-chars';

/**
 * `text` cut to its first `max` characters and a line saying so, e.g. `[clipped: the first
 * 20,000 of 4,194,304 characters]`; `text` itself when within `max`.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[clipped: the first ${max.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters]`;
}
