import { type Command, InvalidArgumentError } from 'commander';
import { parseSiteFlags, siteVariable } from '../envs/web/sites/url-sites.ts';
import { EXPERIENCE_CHOICES, type ExperienceChoice } from '../experience/llm-free.ts';

/** Commander parser for an integer option with bounds; the error names the option's rule. */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got "${value}".`);
    }
    return n;
  };
}

/** Commander parser for a probability in [0, 1]. */
export function probabilityOption(value: string): number {
  const x = Number(value);
  if (!(x >= 0 && x <= 1))
    throw new InvalidArgumentError(`expected a number from 0 to 1, got "${value}".`);
  return x;
}

/** Commander parser for a number above 0 (seconds, money). */
export function positiveNumber(value: string): number {
  const x = Number(value);
  if (!(Number.isFinite(x) && x > 0))
    throw new InvalidArgumentError(`expected a number above 0, got "${value}".`);
  return x;
}

/** Commander parser for a number of 0 or more (a penalty's weight). */
export function nonNegativeNumber(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !(Number.isFinite(x) && x >= 0))
    throw new InvalidArgumentError(`expected a number of 0 or more, got "${value}".`);
  return x;
}

/** Commander parser for a task split. */
export function splitOption(value: string): 'train' | 'test' {
  if (value !== 'train' && value !== 'test') {
    throw new InvalidArgumentError(`expected train or test, got "${value}".`);
  }
  return value;
}

/** Commander parser for `--experience`: which LLM-free experience model (see `llmFreeModel`). */
export function experienceOption(value: string): ExperienceChoice {
  const choice = EXPERIENCE_CHOICES.find((c) => c === value);
  if (choice === undefined) {
    throw new InvalidArgumentError(
      `expected one of ${EXPERIENCE_CHOICES.join(', ')}, got "${value}".`,
    );
  }
  return choice;
}

/** The help text of `--experience`, the same on every command that takes it. */
export const EXPERIENCE_HELP =
  "the LLM-free experience model: auto (the family's hand-written model where it has one, else the generic one learnt from the buffer), generic (the generic one for any family) or nearest (the nearest-neighbour baseline)";

/** Commander collector for a repeatable option: every value, in order. */
export function repeatable(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/**
 * Adds `--site NAME=URL` (repeatable) to a command that takes `--env`: the base URL of one of a
 * user's sites for `webarena@CONFIG` envs, WebArena's or one a config names itself. It sets the
 * site's env variable (`--site reddit=URL` sets WebArena's `REDDIT`, `--site registry=URL` sets
 * `DREAMGYM_SITE_REGISTRY`), which is where webarena@ envs read URLs from.
 */
export function addSiteOption(command: Command): Command {
  return command
    .option(
      '--site <NAME=URL>',
      'webarena@CONFIG: base URL of a site the configs name, e.g. reddit=http://HOST:9999 or registry=http://HOST:5000 (repeatable; or set REDDIT, SHOPPING, …, DREAMGYM_SITE_<NAME>)',
      repeatable,
      [],
    )
    .hook('preAction', (_, action) => {
      const pairs: string[] = action.opts().site ?? [];
      for (const [site, url] of Object.entries(parseSiteFlags(pairs))) {
        process.env[siteVariable(site)] = url;
      }
    });
}

/**
 * Which of the options `names` (camelCase, as Commander stores them) were given on the command
 * line, as their flags (`groupSize` → `--group-size`): for refusing options a mode does not use.
 */
export function flagsGiven(command: Command, names: readonly string[]): string[] {
  return names
    .filter((name) => command.getOptionValueSource(name) === 'cli')
    .map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
}
