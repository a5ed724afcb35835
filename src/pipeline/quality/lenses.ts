import { ConfigError } from '../../core/errors.ts';
import type { QualityLens } from '../../envs/quality-lens.ts';
import { envEntry } from '../../envs/registry.ts';
import { isWebFamily } from '../../experience/llm-free.ts';
import { householdLens } from './household-lens.ts';
import { webLens } from './web-lens.ts';
import { webshopLens } from './webshop-lens.ts';

const LENSES: Record<string, QualityLens> = { webshop: webshopLens, household: householdLens };

/**
 * The quality lens of an env: its entry's own `lens`, else the built-in family's (every browser
 * family — `web:NAME`, `webarena@…` — shares the web lens); an env without one says how to add it.
 */
export function lensFor(env: string): QualityLens {
  if (isWebFamily(env)) return webLens;
  const lens = LENSES[env] ?? envEntry(env).lens;
  if (!lens)
    throw new ConfigError(
      `"${env}" has no quality lens: the quality proxies read ${Object.keys(LENSES).join(', ')} and web (web:NAME, webarena@…) pages, and any env whose entry exports lens (a QualityLens for its text format: the entities a text names and the facts each observation asserts).`,
    );
  return lens;
}
