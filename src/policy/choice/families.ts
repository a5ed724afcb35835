import type { ChoiceFeatures } from './feature-set.ts';
import { DEFAULT_FEATURE_SIZES, type FeatureSizes, pageFeatures } from './features.ts';
import { GENERIC_FEATURE_SIZES, genericFeatures } from './generic-features.ts';

/** The env families the page features were written for: shops, households, web pages. */
const PAGE_FEATURE_ENVS = ['webshop', 'household', 'agentgym:webshop', 'agentgym:alfworld'];

/**
 * Whether `family` gets the page features: the shop, household and web families (and a policy
 * that names no family, as policies did before families were named). Any other family gets the
 * generic features.
 */
export function usesPageFeatures(family: string | undefined): boolean {
  return (
    family === undefined ||
    PAGE_FEATURE_ENVS.includes(family) ||
    family.startsWith('web:') ||
    family.startsWith('webarena')
  );
}

/** The default feature sizes for `family`. */
export function defaultFeatureSizes(family: string | undefined): FeatureSizes {
  return usesPageFeatures(family) ? DEFAULT_FEATURE_SIZES : GENERIC_FEATURE_SIZES;
}

/**
 * The choice features of an env family: the page features for shops, households and web pages
 * (their numbers are the ones the demo's tables were measured with), the generic features for
 * every other family.
 */
export function choiceFeatures(
  family: string | undefined,
  options: { sizes: FeatureSizes; queries: number; slotValues: number },
): ChoiceFeatures {
  return usesPageFeatures(family)
    ? pageFeatures(options.sizes, options.queries)
    : genericFeatures({ sizes: options.sizes, slotValues: options.slotValues });
}
