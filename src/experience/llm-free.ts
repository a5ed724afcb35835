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

const REAL = ['real-offline', 'real-online'] as const;

/**
 * The LLM-free experience model for an env family, learnt from the buffer's real trajectories:
 * the grammar-aware model where one exists (webshop, household, and the web families `web:NAME`
 * and `webarena…`, whose pages are accessibility trees), else nearest-neighbour retrieval (which
 * learns nothing ahead: it reads the buffer at every step). The grammar-aware models'
 * {@link ExperienceModel.refresh} learns the real episodes added to the buffer since. Synthetic
 * episodes are not learnt: they are this model's own answers, and taking its guessed rewards for
 * seen ones would only make it surer of them.
 */
export async function llmFreeModel(env: string, buffer: ReplayBuffer): Promise<ExperienceModel> {
  const known = new Set<string>();
  const unseen = async () => {
    const found: Trajectory[] = [];
    for (const provenance of REAL) {
      for await (const t of buffer.trajectories({ env, provenance })) {
        if (known.has(t.id)) continue;
        known.add(t.id);
        found.push(t);
      }
    }
    return found;
  };
  const refreshing = <M extends ExperienceModel>(
    model: M,
    knowledge: { add(trajectory: Trajectory): void },
  ): M =>
    Object.assign(model, {
      refresh: async () => {
        const ids = await buffer.trajectoryIds({ env, provenance: REAL });
        if (ids.every((id) => known.has(id))) return 0;
        const found = await unseen();
        for (const t of found) knowledge.add(t);
        return found.length;
      },
    });
  if (env === 'webshop') {
    const knowledge = WebShopKnowledge.fromTrajectories(await unseen());
    return refreshing(new WebShopExperienceModel(knowledge), knowledge);
  }
  if (env === 'household') {
    const knowledge = HouseholdKnowledge.fromTrajectories(await unseen());
    return refreshing(new HouseholdExperienceModel(knowledge), knowledge);
  }
  if (isWebFamily(env)) {
    const knowledge = WebKnowledge.fromTrajectories(await unseen());
    return refreshing(new WebExperienceModel(knowledge), knowledge);
  }
  return new NearestNeighborModel();
}

/** True for the browser families: `web:forum`, `web:store`, `webarena@CONFIG` … */
export function isWebFamily(env: string): boolean {
  return env.startsWith('web:') || env.startsWith('webarena');
}
