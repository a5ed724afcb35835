import { ConfigError } from '../core/errors.ts';
import { agentgymEntry, isAgentGymRef } from './agentgym/index.ts';
import type { Env, TaskSource } from './env.ts';
import { HOUSEHOLD_MAX_STEPS, HouseholdEnv, makeHousehold } from './household/household-env.ts';
import { isWebAppRef, webAppEntries, webAppEntry } from './web/index.ts';
import { isWebArenaRef, webarenaEntry } from './web/webarena/index.ts';
import { makeWebShop, WEBSHOP_MAX_STEPS, WebShopEnv } from './webshop/webshop-env.ts';

/** Options every built-in env understands; each env reads the ones that apply to it. */
export interface EnvOptions {
  split?: 'train' | 'test';
  maxSteps?: number;
  catalogSeed?: number;
  catalogSize?: number;
}

export interface EnvEntry {
  description: string;
  /** The step limit `make` applies unless `options.maxSteps` says otherwise. */
  maxSteps: number;
  /** A fresh env with its default step limit. */
  make(options: EnvOptions): Env;
  /** The env's seeded task splits. */
  tasks(options: EnvOptions): TaskSource;
  /**
   * Set for envs on a remote server: scripted experts read each task's hidden goal, which such a
   * server does not expose, so they cannot play there.
   */
  remote?: boolean;
}

const webshopOptions = (o: EnvOptions) => ({
  catalog: {
    seed: o.catalogSeed ?? 0,
    ...(o.catalogSize !== undefined && { size: o.catalogSize }),
  },
  ...(o.split !== undefined && { split: o.split }),
});

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

/**
 * The registry entry for `name`: a built-in env (`webshop`, `household`, `web:forum`, …), a remote
 * AgentGym server (`agentgym:NAME@URL`), or WebArena task configs run against the user's own sites
 * (`webarena@CONFIG`, site URLs from WebArena's env variables, which `--site` sets). An unknown
 * name lists the known ones.
 */
export function envEntry(name: string): EnvEntry {
  if (isAgentGymRef(name)) return agentgymEntry(name);
  if (isWebArenaRef(name)) return webarenaEntry(name);
  const entry = ENVS[name] ?? (isWebAppRef(name) ? webAppEntry(name) : undefined);
  if (!entry) {
    throw new ConfigError(
      `unknown env "${name}"; available: ${Object.keys(ENVS).join(', ')}, agentgym:webshop@URL / agentgym:alfworld@URL for an AgentGym server, or webarena@CONFIG for WebArena task configs.`,
    );
  }
  return entry;
}
