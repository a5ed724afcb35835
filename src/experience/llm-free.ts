import { ConfigError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { ExperienceModel } from './experience-model.ts';
import { GenericExperienceModel } from './generic/generic-model.ts';
import { GenericKnowledge } from './generic/knowledge.ts';
import { HouseholdExperienceModel } from './household/household-model.ts';
import { HouseholdKnowledge } from './household/knowledge.ts';
import { NearestNeighborModel } from './nearest-neighbor-model.ts';
import { WebKnowledge } from './web/knowledge.ts';
import { WebExperienceModel } from './web/web-model.ts';
import { WebShopKnowledge } from './webshop/knowledge.ts';
import { WebShopExperienceModel } from './webshop/webshop-model.ts';

const REAL = ['real-offline', 'real-online'] as const;

/** The valid {@link ExperienceChoice} values. */
export const EXPERIENCE_CHOICES = ['auto', 'generic', 'nearest'] as const;

/**
 * Which LLM-free experience model to use: `auto` the hand-written one where the family has one
 * (webshop, household, the web families), else the generic one; `generic` the generic model for
 * any family (to compare it with a hand-written one on its own family); `nearest` the
 * nearest-neighbour baseline, which copies the most similar real transition.
 */
export type ExperienceChoice = (typeof EXPERIENCE_CHOICES)[number];

/** Options of {@link llmFreeModel}. */
export interface LlmFreeOptions {
  /** Which model; default `auto`. */
  experience?: ExperienceChoice;
}

/**
 * The LLM-free experience model for an env family, learnt from the buffer's real trajectories:
 * the hand-written model where one exists (webshop, household, and the web families `web:NAME`
 * and `webarena…`, whose pages are accessibility trees), else the generic model learnt from the
 * buffer alone (`GenericExperienceModel`); `experience` picks the generic model or the
 * nearest-neighbour baseline for any family instead. Every model but the nearest-neighbour one
 * (which learns nothing ahead: it reads the buffer at every step) has
 * {@link ExperienceModel.refresh}, which learns the real episodes added to the buffer since.
 * Synthetic episodes are not learnt: they are this model's own answers, and taking its guessed
 * rewards for seen ones would only make it surer of them.
 */
export async function llmFreeModel(
  env: string,
  buffer: ReplayBuffer,
  { experience = 'auto' }: LlmFreeOptions = {},
): Promise<ExperienceModel> {
  if (!EXPERIENCE_CHOICES.includes(experience)) {
    throw new ConfigError(
      `unknown experience model "${experience}"; choose one of ${EXPERIENCE_CHOICES.join(', ')}.`,
    );
  }
  if (experience === 'nearest') return new NearestNeighborModel();
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
  if (experience === 'auto' && env === 'webshop') {
    const knowledge = WebShopKnowledge.fromTrajectories(await unseen());
    return refreshing(new WebShopExperienceModel(knowledge), knowledge);
  }
  if (experience === 'auto' && env === 'household') {
    const knowledge = HouseholdKnowledge.fromTrajectories(await unseen());
    return refreshing(new HouseholdExperienceModel(knowledge), knowledge);
  }
  if (experience === 'auto' && isWebFamily(env)) {
    const knowledge = WebKnowledge.fromTrajectories(await unseen());
    return refreshing(new WebExperienceModel(knowledge), knowledge);
  }
  const knowledge = GenericKnowledge.fromTrajectories(await unseen());
  return refreshing(new GenericExperienceModel(knowledge), knowledge);
}

/** True for the browser families: `web:forum`, `web:store`, `webarena@CONFIG` … */
export function isWebFamily(env: string): boolean {
  return env.startsWith('web:') || env.startsWith('webarena');
}
