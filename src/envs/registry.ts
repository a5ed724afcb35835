import { ConfigError } from '../core/errors.ts';
import { agentgymEntry, isAgentGymRef } from './agentgym/index.ts';
import type { EnvEntry, EnvOptions } from './env.ts';
import { HOUSEHOLD_MAX_STEPS, HouseholdEnv, makeHousehold } from './household/household-env.ts';
import { isModuleRef, loadModuleEntry, type ModuleEnvEntry } from './module-entry.ts';
import { isWebAppRef, webAppEntries, webAppEntry } from './web/index.ts';
import { isWebArenaRef, webarenaEntry } from './web/webarena/index.ts';
import { makeWebShop, WEBSHOP_MAX_STEPS, WebShopEnv } from './webshop/webshop-env.ts';

const webshopOptions = (o: EnvOptions) => ({
  catalog: {
    seed: o.catalogSeed ?? 0,
    ...(o.catalogSize !== undefined && { size: o.catalogSize }),
  },
  ...(o.split !== undefined && { split: o.split }),
});

/**
 * The built-in envs by name; `envEntry` also resolves `web:…`, `webarena@…` and `agentgym:…` names.
 */
export const ENVS: Record<string, EnvEntry> = {
  webshop: {
    description: 'text web shop after WebShop: search[query], click[label]; generated catalog',
    maxSteps: WEBSHOP_MAX_STEPS,
    make: (o) =>
      makeWebShop({
        ...webshopOptions(o),
        ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
      }),
    tasks: (o) => new WebShopEnv(webshopOptions(o)),
  },
  household: {
    description: 'text household after ALFWorld: go to, open, take, move, heat/cool/clean, use',
    maxSteps: HOUSEHOLD_MAX_STEPS,
    make: (o) =>
      makeHousehold({
        ...(o.split !== undefined && { split: o.split }),
        ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
      }),
    tasks: () => new HouseholdEnv(),
  },
  ...webAppEntries(),
};

/** Entries of this process beside the built-ins, by family: loaded modules and `registerEnv`. */
const REGISTERED = new Map<string, EnvEntry & { name: string }>();

/**
 * The registry entry for `name`: a built-in env (`webshop`, `household`, `web:forum`, …), a remote
 * AgentGym server (`agentgym:NAME@URL`), WebArena task configs run against the user's own sites
 * (`webarena@CONFIG`, site URLs from WebArena's env variables, which `--site` sets), or an entry
 * registered in this process ({@link registerEnv}; a user's module once {@link resolveEnvRef} has
 * loaded it). An unknown name lists the known ones.
 */
export function envEntry(name: string): EnvEntry {
  if (isAgentGymRef(name)) return agentgymEntry(name);
  if (isWebArenaRef(name)) return webarenaEntry(name);
  const entry =
    ENVS[name] ?? REGISTERED.get(name) ?? (isWebAppRef(name) ? webAppEntry(name) : undefined);
  if (!entry) {
    if (isModuleRef(name)) {
      throw new ConfigError(
        `env module "${name}" is not loaded; commands load it themselves, code calls await resolveEnvRef("${name}") first.`,
      );
    }
    throw new ConfigError(
      `unknown env "${name}"; available: ${[...Object.keys(ENVS), ...REGISTERED.keys()].join(', ')}, a module of your own (./my-env.ts exporting an EnvEntry), agentgym:NAME@URL for an AgentGym server, or webarena@CONFIG for WebArena task configs.`,
    );
  }
  return entry;
}

/**
 * Makes `entry` known to {@link envEntry} under its `name`, the family its envs and data carry,
 * for the rest of this process: how code hands the library an env of its own. A name taken by a
 * built-in or by another entry is refused. Returns the name.
 */
export function registerEnv(entry: EnvEntry & { name: string }): string {
  const taken = ENVS[entry.name] ?? REGISTERED.get(entry.name);
  if (taken !== undefined && taken !== entry && !sameModule(taken, entry)) {
    throw new ConfigError(
      `env name "${entry.name}" is taken by ${ENVS[entry.name] ? 'a built-in env' : 'another registered env'}; give your entry another name.`,
    );
  }
  REGISTERED.set(entry.name, entry);
  return entry.name;
}

/** True when both entries were loaded from the same export of the same module (a reload). */
function sameModule(a: EnvEntry, b: EnvEntry): boolean {
  const [x, y] = [(a as Partial<ModuleEnvEntry>).module, (b as Partial<ModuleEnvEntry>).module];
  return x !== undefined && y !== undefined && x.path === y.path && x.exportName === y.exportName;
}

/**
 * The name other calls know an env by: a user's module (`./my-env.ts`, `module:PATH#export`) is
 * loaded, registered and answered by its family name; `synthetic:` refs resolve the family they
 * wrap; anything else is checked ({@link envEntry}) and returned as it is. `cwd` resolves relative
 * module paths.
 */
export async function resolveEnvRef(ref: string, cwd = process.cwd()): Promise<string> {
  if (ref.startsWith(SYNTHETIC_PREFIX)) {
    return `${SYNTHETIC_PREFIX}${await resolveEnvRef(ref.slice(SYNTHETIC_PREFIX.length), cwd)}`;
  }
  if (isModuleRef(ref)) {
    return registerEnv(await loadModuleEntry(ref, cwd));
  }
  envEntry(ref);
  return ref;
}

/**
 * The modules loaded into this process, as refs a worker thread or child process passes to
 * {@link resolveEnvRef} to know the same envs.
 */
export function loadedEnvModules(): string[] {
  return [...REGISTERED.values()].flatMap((entry) => {
    const module = (entry as Partial<ModuleEnvEntry>).module;
    return module === undefined
      ? []
      : [`module:${module.path}${module.exportName === undefined ? '' : `#${module.exportName}`}`];
  });
}

const SYNTHETIC_PREFIX = 'synthetic:';
