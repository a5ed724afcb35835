/**
 * The `webshop` env: a text shop after WebShop (Yao et al., 2022) with a generated catalog, seeded
 * task splits and WebShop's reward, and its scripted expert.
 *
 * @packageDocumentation
 */

export type { CatalogId, Product } from './envs/webshop/types.ts';
export {
  type MakeWebShopOptions,
  makeWebShop,
  WEBSHOP_MAX_STEPS,
  WebShopEnv,
  type WebShopOptions,
} from './envs/webshop/webshop-env.ts';
export { WebShopExpert, type WebShopExpertOptions } from './policy/experts/webshop-expert.ts';
