import { ConfigError } from '../../core/errors.ts';
import {
  clipText,
  DEFAULT_MAX_OBSERVATION_CHARS,
  OBSERVATION_LIMIT_SETTING,
} from '../../core/observation-limit.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../env.ts';

/**
 * Keeps the text an env hands back within `maxChars` characters: an observation's text, and each
 * string of its `info` (an MCP env's `checkResult`, an answer), are cut to their first `maxChars`
 * and a line saying how long they were (`clipText`); `info.clipped` says which were. Its
 * place is around envs whose observations come from a server dreamgym does not control, where one
 * tool result of megabytes would otherwise be stored whole in every file and buffer it reaches.
 */
export class ObservationLimit implements Env {
  constructor(
    readonly env: Env,
    readonly maxChars = DEFAULT_MAX_OBSERVATION_CHARS,
  ) {
    if (!(Number.isInteger(maxChars) && maxChars >= 1)) {
      throw new ConfigError(
        `the observation limit is a whole number of characters, at least 1 (${OBSERVATION_LIMIT_SETTING}), got ${maxChars}.`,
      );
    }
  }

  get name(): string {
    return this.env.name;
  }

  async reset(options?: ResetOptions): Promise<ResetResult> {
    return this.limit(await this.env.reset(options));
  }

  async step(action: string): Promise<StepResult> {
    return this.limit(await this.env.step(action));
  }

  close(): Promise<void> {
    return this.env.close();
  }

  /** `result` with its long texts clipped, and `info.clipped` naming them. */
  private limit<R extends ResetResult | StepResult>(result: R): R {
    const over: string[] = [];
    const clip = (text: string, what: string): string => {
      if (text.length <= this.maxChars) return text;
      over.push(`${what} (${text.length.toLocaleString('en-US')} characters)`);
      return clipText(text, this.maxChars);
    };
    const text = clip(result.observation.text, 'the observation');
    const info = Object.fromEntries(
      Object.entries(result.info).map(([key, value]) => [
        key,
        typeof value === 'string' ? clip(value, `info.${key}`) : value,
      ]),
    );
    if (over.length === 0) return result;
    const max = this.maxChars.toLocaleString('en-US');
    const clipped = `${over.join(' and ')} ${over.length === 1 ? 'was' : 'were'} over the limit of ${max} characters (${OBSERVATION_LIMIT_SETTING}): ${over.length === 1 ? 'it keeps' : 'each keeps'} its first ${max}`;
    return { ...result, observation: { ...result.observation, text }, info: { ...info, clipped } };
  }
}
