import type { Env, ResetOptions, ResetResult, StepResult } from '../env.ts';

/**
 * MOPO's pessimism (Yu et al., 2020) on a synthetic env's steps: the step that ends an episode
 * pays its reward minus `weight` times the episode's summed `info.uncertainty`, so a return the
 * experience model was unsure of counts for less (`info.uncertaintyPenalty` says how much was
 * taken). On the last step, not spread over the steps: GRPO learns from final rewards only, and
 * with γ = 1 GAE's return is the same. Steps that carry no uncertainty add nothing. Put it
 * outside `TimeLimit`, so episodes the limit cuts off pay it too, and outside `RecordEpisodes`,
 * so the buffer keeps the model's own rewards.
 */
export class UncertaintyPenalty implements Env {
  private summed = 0;

  constructor(
    readonly env: Env,
    /** λ: reward taken per unit of summed uncertainty. */
    readonly weight: number,
  ) {
    if (!(Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(`UncertaintyPenalty: the weight must be 0 or more, got ${weight}.`);
    }
  }

  get name(): string {
    return this.env.name;
  }

  async reset(options?: ResetOptions): Promise<ResetResult> {
    const result = await this.env.reset(options);
    this.summed = 0;
    return result;
  }

  async step(action: string): Promise<StepResult> {
    const result = await this.env.step(action);
    const u = result.info.uncertainty;
    if (typeof u === 'number') this.summed += u;
    if (!(result.terminated || result.truncated) || this.summed === 0 || this.weight === 0) {
      return result;
    }
    const penalty = this.weight * this.summed;
    return {
      ...result,
      reward: result.reward - penalty,
      info: { ...result.info, uncertaintyPenalty: penalty },
    };
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
