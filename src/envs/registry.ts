import { ConfigError } from '../core/errors.ts';
import type { Env, TaskSource } from './env.ts';
import { makeWebShop, WebShopEnv } from './webshop/webshop-env.ts';

/** Options every built-in env understands; each env reads the ones that apply to it. */
export interface EnvOptions {
  split?: 'train' | 'test';
  maxSteps?: number;
  catalogSeed?: number;
  catalogSize?: number;
}

export interface EnvEntry {
  description: string;
  /** A fresh env with its default step limit. */
  make(options: EnvOptions): Env;
  /** The env's seeded task splits. */
  tasks(options: EnvOptions): TaskSource;
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
    make: (o) =>
      makeWebShop({
        ...webshopOptions(o),
        ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
      }),
    tasks: (o) => new WebShopEnv(webshopOptions(o)),
  },
};

/** The registry entry for `name`; an unknown name lists the known ones. */
export function envEntry(name: string): EnvEntry {
  const entry = ENVS[name];
  if (!entry) {
    throw new ConfigError(`unknown env "${name}"; available: ${Object.keys(ENVS).join(', ')}.`);
  }
  return entry;
}
