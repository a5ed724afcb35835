import { isActionTemplate, type Observation } from '../core/types.ts';
import { fillTemplate } from '../envs/actions.ts';
import type { Policy, PolicyAction, PolicyContext } from './policy.ts';

/**
 * Picks an admissible action uniformly; a template such as `search[<query>]` is filled with 1–3
 * words of the instruction. The floor every trained policy must beat.
 */
export class RandomPolicy implements Policy {
  readonly id = 'random';

  async act(observation: Observation, { rng }: PolicyContext): Promise<PolicyAction> {
    const actions = observation.actions ?? [];
    if (actions.length === 0)
      throw new Error('RandomPolicy needs an env that lists admissible actions.');
    const action = rng.pick(actions);
    const logProb = -Math.log(actions.length);
    if (!isActionTemplate(action)) return { action, logProb };
    const words = observation.instruction.split(/\s+/).filter((w) => /^[a-z][a-z-]+$/i.test(w));
    const query = rng.sample(words, rng.between(1, 3)).join(' ') || 'item';
    return { action: fillTemplate(action, query), logProb };
  }
}
