import type { Trajectory } from '../core/types.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { ExperienceModel } from './experience-model.ts';
import { HouseholdExperienceModel } from './household/household-model.ts';
import { HouseholdKnowledge } from './household/knowledge.ts';
import { NearestNeighborModel } from './nearest-neighbor-model.ts';
import { WebKnowledge } from './web/knowledge.ts';
import { WebExperienceModel } from './web/web-model.ts';
import { WebShopKnowledge } from './webshop/knowledge.ts';
import { WebShopExperienceModel } from './webshop/webshop-model.ts';

/**
 * The LLM-free experience model for an env family, learnt from the buffer's real trajectories:
 * the grammar-aware model where one exists (webshop, household, and the web families `web:NAME`
 * and `webarena…`, whose pages are accessibility trees), else nearest-neighbour retrieval.
 */
export async function llmFreeModel(env: string, buffer: ReplayBuffer): Promise<ExperienceModel> {
  const real = async () => {
    const found: Trajectory[] = [];
    for (const provenance of ['real-offline', 'real-online'] as const) {
      for await (const t of buffer.trajectories({ env, provenance })) found.push(t);
    }
    return found;
  };
  if (env === 'webshop')
    return new WebShopExperienceModel(WebShopKnowledge.fromTrajectories(await real()));
  if (env === 'household')
    return new HouseholdExperienceModel(HouseholdKnowledge.fromTrajectories(await real()));
  if (isWebFamily(env)) return new WebExperienceModel(WebKnowledge.fromTrajectories(await real()));
  return new NearestNeighborModel();
}

/** True for the browser families: `web:forum`, `web:store`, `webarena@CONFIG` … */
export function isWebFamily(env: string): boolean {
  return env.startsWith('web:') || env.startsWith('webarena');
}
