import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { ExperienceModel } from './experience-model.ts';
import { HouseholdExperienceModel } from './household/household-model.ts';
import { HouseholdKnowledge } from './household/knowledge.ts';
import { NearestNeighborModel } from './nearest-neighbor-model.ts';
import { WebShopKnowledge } from './webshop/knowledge.ts';
import { WebShopExperienceModel } from './webshop/webshop-model.ts';

/**
 * The LLM-free experience model for an env family, learnt from the buffer's real trajectories:
 * the grammar-aware model where one exists (webshop, household), else nearest-neighbour retrieval.
 */
export function llmFreeModel(env: string, buffer: ReplayBuffer): ExperienceModel {
  const real = () => [
    ...buffer.trajectories({ env, provenance: 'real-offline' }),
    ...buffer.trajectories({ env, provenance: 'real-online' }),
  ];
  if (env === 'webshop')
    return new WebShopExperienceModel(WebShopKnowledge.fromTrajectories(real()));
  if (env === 'household')
    return new HouseholdExperienceModel(HouseholdKnowledge.fromTrajectories(real()));
  return new NearestNeighborModel();
}
