import { ConfigError } from '../../core/errors.ts';
import { isWebFamily } from '../../experience/llm-free.ts';
import { householdLens } from './household-lens.ts';
import type { QualityLens } from './lens.ts';
import { webLens } from './web-lens.ts';
import { webshopLens } from './webshop-lens.ts';

const LENSES: Record<string, QualityLens> = { webshop: webshopLens, household: householdLens };

/**
 * The quality lens of an env family (every browser family — `web:NAME`, `webarena@…` — shares
 * the web lens); an unknown family lists the known ones.
 */
export function lensFor(env: string): QualityLens {
  if (isWebFamily(env)) return webLens;
  const lens = LENSES[env];
  if (!lens)
    throw new ConfigError(
      `quality proxies read ${Object.keys(LENSES).join(', ')} and web (web:NAME, webarena@…) pages; "${env}" has no lens yet (write a QualityLens for its text format).`,
    );
  return lens;
}
