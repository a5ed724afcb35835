import { ConfigError } from '../core/errors.ts';
import { agentgymEntry, isAgentGymRef } from './agentgym/index.ts';
import type { Env, TaskSource } from './env.ts';
import { HOUSEHOLD_MAX_STEPS, HouseholdEnv, makeHousehold } from './household/household-env.ts';
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
};

/**
 * The registry entry for `name`, or for a remote AgentGym server named `agentgym:NAME@URL`; an
 * unknown name lists the known ones.
 */
export function envEntry(name: string): EnvEntry {
  if (isAgentGymRef(name)) return agentgymEntry(name);
  const entry = ENVS[name];
  if (!entry) {
    throw new ConfigError(
      `unknown env "${name}"; available: ${Object.keys(ENVS).join(', ')}, or agentgym:webshop@URL / agentgym:alfworld@URL for an AgentGym server.`,
    );
  }
  return entry;
}
