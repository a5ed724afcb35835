import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../../../core/errors.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from './config.ts';

/**
 * A WebArena config file that cannot be used. The message names the file, the task (its
 * `task_id`, or its position in an array) and the field, and says what was expected.
 */
export class WebArenaConfigError extends ConfigError {
  override name = 'WebArenaConfigError';
  constructor(
    readonly file: string,
    readonly task: string | undefined,
    readonly problem: string,
  ) {
    super(`${file}${task === undefined ? '' : `: ${task}`}: ${problem}`);
  }
}

/** One task config and the file it came from. */
export interface LoadedConfig {
  config: WebArenaConfig;
  file: string;
}

const USAGE =
  'pass a WebArena task config (one JSON object), a JSON array of them (WebArena-Lite style, ' +
  "like WebArena's test.raw.json) or a directory of *.json task files";

/**
 * Reads WebArena task configs from `path`: a file holding one task object or an array of them, or
 * a directory whose `*.json` files each hold one or an array (read in natural name order, so
 * `2.json` comes before `10.json`). Every task is validated; a task id seen twice is refused
 * (pointing at WebArena's `config_files/`, which holds both `test.raw.json` and the generated
 * `N.json` copies, would otherwise load every task twice).
 */
export function loadWebArenaConfigs(path: string): LoadedConfig[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new ConfigError(`${path}: no such file or directory; ${USAGE}.`);
  }
  const files = isDirectory
    ? readdirSync(path)
        .filter((name) => name.endsWith('.json'))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        .map((name) => join(path, name))
    : [path];
  if (files.length === 0)
    throw new ConfigError(`${path}: the directory has no *.json files; ${USAGE}.`);
  const loaded = files.flatMap((file) =>
    parseWebArenaConfigs(readJson(file), file).map((config) => ({ config, file })),
  );
  const seen = new Map<string, string>();
  for (const { config, file } of loaded) {
    const id = String(config.task_id);
    const first = seen.get(id);
    if (first !== undefined) {
      throw new WebArenaConfigError(
        file,
        `task ${id}`,
        `task_id ${id} is also in ${first}; give each task its own id, or load one file of a set ` +
          "(e.g. WebArena's test.raw.json without the generated N.json copies beside it).",
      );
    }
    seen.set(id, file);
  }
  return loaded;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WebArenaConfigError(file, undefined, `cannot read it (${(error as Error).message}).`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WebArenaConfigError(
      file,
      undefined,
      `not valid JSON (${(error as Error).message}); fix the file or ${USAGE}.`,
    );
  }
}

/** The validated configs in one parsed JSON value (an object or an array of them) read from `file`. */
export function parseWebArenaConfigs(value: unknown, file: string): WebArenaConfig[] {
  if (Array.isArray(value)) {
    if (value.length === 0)
      throw new WebArenaConfigError(file, undefined, `an empty array; ${USAGE}.`);
    return value.map((entry, index) => parseWebArenaConfig(entry, file, index));
  }
  return [parseWebArenaConfig(value, file)];
}

/**
 * One validated task config: WebArena's schema, plus what its evaluators need to run (a
 * string_match needs reference answers, a url_match a reference URL, a program_html its checks).
 * `index` is the task's position when the file holds an array.
 */
export function parseWebArenaConfig(value: unknown, file: string, index?: number): WebArenaConfig {
  const where = taskLabel(value, index);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WebArenaConfigError(
      file,
      where,
      `expected a task object, found ${describe(value)}; ${USAGE}.`,
    );
  }
  const result = WebArenaConfigSchema.safeParse(value);
  if (!result.success) {
    throw new WebArenaConfigError(file, where, formatIssues(result.error.issues));
  }
  const problem = evalProblem(result.data);
  if (problem) throw new WebArenaConfigError(file, where, problem);
  return result.data;
}

function taskLabel(value: unknown, index: number | undefined): string | undefined {
  const id =
    value !== null && typeof value === 'object' && 'task_id' in value
      ? (value as { task_id: unknown }).task_id
      : undefined;
  const at = index === undefined ? undefined : `entry ${index}`;
  if (typeof id === 'number' || typeof id === 'string') {
    return at === undefined ? `task ${id}` : `task ${id} (${at})`;
  }
  return at;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the task)';
    return `field ${field}: ${issue.message}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `${shown.join('; ')}${more}. See WebArena's config format (config_files/test.raw.json).`;
}

/** Why the config's evaluators could not run, or undefined when they can. */
function evalProblem(config: WebArenaConfig): string | undefined {
  const { eval: evaluation } = config;
  for (const type of evaluation.eval_types) {
    if (type === 'string_match') {
      const answers = evaluation.reference_answers;
      const known = ['exact_match', 'must_include', 'must_exclude', 'fuzzy_match'];
      if (!answers || !known.some((key) => answers[key] !== undefined)) {
        return `field eval.reference_answers: string_match needs one of ${known.join(', ')}.`;
      }
    }
    if (type === 'url_match' && !evaluation.reference_url?.trim()) {
      return 'field eval.reference_url: url_match needs the gold URL (alternatives joined by " |OR| ").';
    }
    if (type === 'program_html') {
      const checks = evaluation.program_html ?? [];
      if (checks.length === 0) {
        return 'field eval.program_html: program_html needs at least one { url, locator, required_contents } check.';
      }
      const kinds = ['exact_match', 'must_include', 'must_exclude', 'fuzzy_match'];
      const bad = checks.findIndex((check) =>
        kinds.every((kind) => check.required_contents[kind] === undefined),
      );
      if (bad >= 0) {
        return `field eval.program_html.${bad}.required_contents: needs one of ${kinds.join(', ')}.`;
      }
    }
  }
  return undefined;
}
