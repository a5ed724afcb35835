import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../core/errors.ts';
import type { EnvEntry } from './env.ts';

/** Prefix of the explicit form `module:PATH#export`. */
export const MODULE_PREFIX = 'module:';

/** A user's env module named on the command line or in a config: where it is, which export. */
export interface ModuleRef {
  /** Absolute path of the module file. */
  path: string;
  /** The named export holding the entry; the default export (or the only entry) when absent. */
  exportName?: string;
}

/** An env entry loaded from a user's module, with the family name its data will carry. */
export type ModuleEnvEntry = EnvEntry & { name: string; module: ModuleRef };

const USAGE =
  'name a module that exports an EnvEntry: --env ./my-env.ts (its default export), or module:./my-env.ts#supportDesk for a named export';

/**
 * True for names of a user's env module: a path (`./my-env.ts`, `../envs/desk.js`, `/abs/env.mjs`)
 * or `module:PATH#export`. Server refs (`agentgym:NAME@URL`, `webarena@CONFIG`, …) are not.
 */
export function isModuleRef(name: string): boolean {
  if (name.startsWith(MODULE_PREFIX)) return true;
  if (/^[\w-]+(:[\w-]*)?@/.test(name)) return false;
  return /^\.{1,2}\//.test(name) || isAbsolute(name) || /\.(m|c)?[jt]sx?(#[\w$]+)?$/.test(name);
}

/** Parses a module ref; the path resolves against `cwd`. */
export function parseModuleRef(ref: string, cwd = process.cwd()): ModuleRef {
  const body = ref.startsWith(MODULE_PREFIX) ? ref.slice(MODULE_PREFIX.length) : ref;
  const hash = body.lastIndexOf('#');
  const file = hash < 0 ? body : body.slice(0, hash);
  const exportName = hash < 0 ? undefined : body.slice(hash + 1);
  if (file === '') throw new ConfigError(`"${ref}" names no module file; ${USAGE}.`);
  if (exportName !== undefined && !/^[A-Za-z_$][\w$]*$/.test(exportName)) {
    throw new ConfigError(`"${exportName}" in "${ref}" is not an export name; ${USAGE}.`);
  }
  return { path: resolve(cwd, file), ...(exportName !== undefined && { exportName }) };
}

/** True when `value` has the shape of an `EnvEntry`; else says what is missing. */
function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not an object';
  const e = value as Record<string, unknown>;
  if (typeof e.make !== 'function') return 'it has no make(options) function';
  if (typeof e.tasks !== 'function') return 'it has no tasks(options) function';
  if (typeof e.maxSteps !== 'number' || !(e.maxSteps > 0))
    return 'its maxSteps is not a number above 0';
  if (typeof e.description !== 'string') return 'its description is not a string';
  if (e.name !== undefined && (typeof e.name !== 'string' || e.name === '')) {
    return 'its name is not a non-empty string';
  }
  if (e.expert !== undefined && typeof e.expert !== 'function') {
    return 'its expert is not a function ({ epsilon }) => expert';
  }
  return undefined;
}

let typeScriptLoaders: Promise<void> | undefined;

/**
 * Registers, once per process, tsx's ES module loader and ./module-hooks (a user's `.ts` is an ES
 * module even in a `"type": "commonjs"` package). Not tsx's CommonJS loader: registered for the
 * process, it would compile dreamgym's own dependencies to CommonJS when a user's module is
 * CommonJS. Not `tsImport` or a namespaced `register`: their module graph is the user's module's
 * own, with a second copy of dreamgym whose error classes `instanceof` would not know and whose
 * registries the CLI would not see.
 */
function registerTypeScript(): Promise<void> {
  typeScriptLoaders ??= import('tsx/esm/api').then((tsx) => {
    tsx.register();
    // ./module-hooks.ts in the sources (run through tsx), ./module-hooks.js in the package.
    register(`./module-hooks${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  });
  return typeScriptLoaders;
}

let commonJsRequire: Promise<(id: string, fromFile: string) => unknown> | undefined;

/**
 * Imports a module file, TypeScript too. A `.cts` is CommonJS by name: a namespaced tsx CommonJS
 * loader compiles it and what it requires, and nothing else in the process.
 */
async function importFile(path: string): Promise<Record<string, unknown>> {
  if (path.endsWith('.cts')) {
    commonJsRequire ??= import('tsx/cjs/api').then(
      (tsx) => tsx.register({ namespace: 'dreamgym-env-module' }).require,
    );
    return (await commonJsRequire)(path, import.meta.url) as Record<string, unknown>;
  }
  if (/\.m?tsx?$/.test(path)) await registerTypeScript();
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

/** What to do about a module that failed to load, for the failures that have a known fix. */
function loadFailureFix(path: string, message: string): string {
  if (
    /\.c[jt]s$/.test(path) &&
    /top-level await|ERR_REQUIRE_ASYNC_MODULE|require\(\) of ES Module/i.test(message)
  ) {
    return `${path} is CommonJS, which cannot require dreamgym or another ES module that awaits at top level; name it .ts or .mts (an ES module), or .mjs in JavaScript`;
  }
  if (/ is not defined in ES module scope/.test(message)) {
    return `dreamgym loads a .ts env module as an ES module: use import and export, import.meta.dirname for __dirname; or name a CommonJS module .cts`;
  }
  return `Fix the module (try: node --import tsx ${path})`;
}

/**
 * The env entry a user's module exports: its default export, the named one (`module:PATH#name`),
 * or its only export shaped like an entry. TypeScript modules load through tsx, as ES modules but
 * for `.cts` (./module-hooks.ts says why). The family name is the entry's `name`, else the `name`
 * of an env it makes (made and closed once). Any problem — a missing file, a module that throws, no
 * entry, a malformed one — names the module and the fix.
 */
export async function loadModuleEntry(ref: string, cwd = process.cwd()): Promise<ModuleEnvEntry> {
  const module = parseModuleRef(ref, cwd);
  if (!existsSync(module.path)) {
    throw new ConfigError(`env module ${module.path} (from "${ref}") does not exist; ${USAGE}.`);
  }
  let exports: Record<string, unknown>;
  try {
    exports = await importFile(module.path);
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    throw new ConfigError(
      `env module ${module.path} failed to load: ${message}. ${loadFailureFix(module.path, message)}.`,
    );
  }
  const candidates =
    module.exportName !== undefined
      ? [[module.exportName, exports[module.exportName]] as const]
      : 'default' in exports
        ? [['default', exports.default] as const]
        : Object.entries(exports).filter(([, value]) => entryProblem(value) === undefined);
  if (module.exportName !== undefined && !(module.exportName in exports)) {
    throw new ConfigError(
      `env module ${module.path} has no export "${module.exportName}"; its exports: ${Object.keys(exports).join(', ') || '(none)'}.`,
    );
  }
  if (candidates.length !== 1) {
    throw new ConfigError(
      candidates.length === 0
        ? `env module ${module.path} exports no EnvEntry (an object with make, tasks, maxSteps and description); export one as default.`
        : `env module ${module.path} exports ${candidates.length} EnvEntry objects (${candidates.map(([n]) => n).join(', ')}); pick one with module:${module.path}#NAME.`,
    );
  }
  const [exportName, value] = candidates[0] as readonly [string, unknown];
  const problem = entryProblem(value);
  if (problem) {
    throw new ConfigError(
      `export "${exportName}" of env module ${module.path} is not an EnvEntry: ${problem}. An entry has make(options), tasks(options), maxSteps and description (see EnvEntry in dreamgym's docs).`,
    );
  }
  const entry = value as EnvEntry;
  return { ...entry, name: entry.name ?? (await madeEnvName(entry, module.path)), module };
}

async function madeEnvName(entry: EnvEntry, path: string): Promise<string> {
  const env = entry.make({});
  try {
    if (typeof env.name !== 'string' || env.name === '') {
      throw new ConfigError(
        `the env made by ${path} has no name; set name on the env or on the exported entry.`,
      );
    }
    return env.name;
  } finally {
    await env.close();
  }
}
