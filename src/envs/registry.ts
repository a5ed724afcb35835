import { ConfigError } from '../core/errors.ts';
import { agentgymEntry, isAgentGymRef } from './agentgym/index.ts';
import { bookingEntry } from './booking/entry.ts';
import type { EnvEntry, EnvOptions } from './env.ts';
import { HOUSEHOLD_MAX_STEPS, HouseholdEnv, makeHousehold } from './household/household-env.ts';
import { keysAndDoorsEntry } from './keys-and-doors/entry.ts';
import { isMcpRef, mcpEntry } from './mcp/index.ts';
import {
  isModuleRef,
  loadModuleEntry,
  MODULE_PREFIX,
  type ModuleEnvEntry,
} from './module-entry.ts';
import { isOpenEnvRef, openenvEntry } from './openenv/index.ts';
import { supportDeskEntry } from './support-desk/entry.ts';
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
  // Test beds of other shapes, with no hand-written experience model (see the generic model).
  'support-desk': supportDeskEntry,
  'keys-and-doors': keysAndDoorsEntry,
  booking: bookingEntry,
};

/**
 * Entries of this process beside the built-ins, by family: loaded modules, server refs resolved to
 * the family their data carries, and entries handed over in code. `source` tells a re-registration
 * of the same env (the same module export, the same server ref) from a clash of names.
 */
const REGISTERED = new Map<string, { entry: EnvEntry & { name: string }; source?: string }>();

/**
 * The registry entry for `name`: a built-in env (`webshop`, `household`, `web:forum`, …), a remote
 * AgentGym server (`agentgym:NAME@URL`), an OpenEnv server (`openenv@URL`), an MCP tool server
 * (`mcp@CONFIG.json`), WebArena task configs run against the user's own sites
 * (`webarena@CONFIG`, site URLs from WebArena's env variables, which `--site` sets), or an entry
 * registered in this process ({@link registerEnv}; a user's module once {@link resolveEnvRef} has
 * loaded it). An unknown name lists the known ones.
 */
export function envEntry(name: string): EnvEntry {
  const registered = REGISTERED.get(name)?.entry;
  if (registered) return registered;
  if (isAgentGymRef(name)) return agentgymEntry(name);
  if (isWebArenaRef(name)) return webarenaEntry(name);
  if (isMcpRef(name)) return mcpEntry(name);
  if (isOpenEnvRef(name)) return openenvEntry(name);
  const entry =
    ENVS[name] ??
    REGISTERED.get(name)?.entry ??
    (isWebAppRef(name) ? webAppEntry(name) : undefined);
  if (!entry) {
    if (isModuleRef(name)) {
      throw new ConfigError(
        `env module "${name}" is not loaded; commands load it themselves, code calls await resolveEnvRef("${name}") first.`,
      );
    }
    throw new ConfigError(
      `unknown env "${name}"; available: ${[...Object.keys(ENVS), ...REGISTERED.keys()].join(', ')}, a module of your own (./my-env.ts exporting an EnvEntry), agentgym:NAME@URL for an AgentGym server (NAME: webshop, alfworld, textcraft, babyai, sciworld, sqlgym, maze, wordle, weather, movie, todo, academia, sheet, searchqa; agentgym:generic:NAME@URL for any other), webarena@CONFIG for WebArena task configs, openenv@URL / openenv:NAME@URL for an OpenEnv server, or mcp@CONFIG.json for an MCP tool server.`,
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
  return register(entry, moduleSource(entry));
}

function register(entry: EnvEntry & { name: string }, source: string | undefined): string {
  const taken = REGISTERED.get(entry.name);
  const same =
    taken !== undefined &&
    (taken.entry === entry || (source !== undefined && taken.source === source));
  if (ENVS[entry.name] || (taken && !same)) {
    throw new ConfigError(
      `env name "${entry.name}" is taken by ${ENVS[entry.name] ? 'a built-in env' : `another registered env${taken?.source ? ` (${taken.source})` : ''}`}; give your entry another name.`,
    );
  }
  REGISTERED.set(entry.name, { entry, ...(source !== undefined && { source }) });
  return entry.name;
}

/** The ref a module entry was loaded by, `module:PATH[#export]`; undefined for other entries. */
function moduleSource(entry: EnvEntry): string | undefined {
  const module = (entry as Partial<ModuleEnvEntry>).module;
  return (
    module && `${MODULE_PREFIX}${module.path}${module.exportName ? `#${module.exportName}` : ''}`
  );
}

/**
 * The name other calls know an env by, the family its data carries: a user's module
 * (`./my-env.ts`, `module:PATH#export`) is loaded and registered under its name; a server ref
 * whose entry names its family (`agentgym:webshop@URL` → `agentgym:webshop`, `mcp@CONFIG` →
 * `mcp:NAME`) is registered under that family, so data and later calls find the server again;
 * `synthetic:` refs resolve the family they wrap; anything else is checked ({@link envEntry})
 * and returned as it is. `cwd` resolves relative module paths.
 */
export async function resolveEnvRef(ref: string, cwd = process.cwd()): Promise<string> {
  if (ref.startsWith(SYNTHETIC_PREFIX)) {
    return `${SYNTHETIC_PREFIX}${await resolveEnvRef(ref.slice(SYNTHETIC_PREFIX.length), cwd)}`;
  }
  if (isModuleRef(ref)) return registerEnv(await loadModuleEntry(ref, cwd));
  const entry = envEntry(ref);
  if (entry.name === undefined || entry.name === ref || ENVS[ref]) return ref;
  return register({ ...entry, name: entry.name }, ref);
}

/**
 * The modules loaded into this process, as refs a worker thread or child process passes to
 * {@link resolveEnvRef} to know the same envs.
 */
export function loadedEnvModules(): string[] {
  return [...REGISTERED.values()].flatMap(({ entry }) => moduleSource(entry) ?? []);
}

const SYNTHETIC_PREFIX = 'synthetic:';
