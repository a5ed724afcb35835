import { ConfigError } from '../core/errors.ts';
import { agentgymEntry, isAgentGymRef } from './agentgym/index.ts';
import type { EnvEntry, EnvOptions } from './env.ts';
import { HOUSEHOLD_MAX_STEPS, HouseholdEnv, makeHousehold } from './household/household-env.ts';
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
