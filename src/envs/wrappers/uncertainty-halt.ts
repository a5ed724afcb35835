import type { Env, ResetOptions, ResetResult, StepResult } from '../env.ts';

/**
 * MOReL's halt (Kidambi et al., 2020) on a synthetic env: a step whose `info.uncertainty` passes
 * `threshold` ends the episode there, unjudged (`info.unjudged`, reward 0, `info.halted`): the
 * experience model does not know what follows, so nothing after it is dreamt and trainers leave
 * the episode out rather than learn from a guess. Steps that carry no uncertainty pass. Put it
 * inside `TimeLimit`.
 */
export class UncertaintyHalt implements Env {
  constructor(
    readonly env: Env,
    /** τ: the uncertainty above which an episode halts. */
    readonly threshold: number,
  ) {
    if (!(threshold >= 0 && threshold <= 1)) {
      throw new RangeError(`UncertaintyHalt: the threshold must be in [0, 1], got ${threshold}.`);
    }
  }

  get name(): string {
    return this.env.name;
  }

  reset(options?: ResetOptions): Promise<ResetResult> {
    return this.env.reset(options);
  }

  async step(action: string): Promise<StepResult> {
    const result = await this.env.step(action);
    const u = result.info.uncertainty;
    if (typeof u !== 'number' || u <= this.threshold || result.info.unjudged) return result;
    return {
      ...result,
      reward: 0,
      terminated: true,
      truncated: false,
      info: { ...result.info, unjudged: true, halted: `uncertainty ${u} over ${this.threshold}` },
    };
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
