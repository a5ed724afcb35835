import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../env.ts';

/**
 * Cuts an episode off after `maxSteps` steps (invalid actions count): the step that reaches the
 * limit comes back with `truncated: true` and `info.truncatedBy = 'time-limit'`, unless the env
 * terminated on that very step, in which case termination wins and `truncated` stays false.
 */
export class TimeLimit implements Env {
  private elapsed = 0;
  private ended: 'terminated' | 'truncated' | undefined;
  private started = false;
  private closed = false;

  constructor(
    readonly env: Env,
    readonly maxSteps: number,
  ) {
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new RangeError(`TimeLimit: maxSteps must be a positive integer, got ${maxSteps}`);
    }
  }

  get name(): string {
    return this.env.name;
  }

  async reset(options?: ResetOptions): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const result = await this.env.reset(options);
    this.elapsed = 0;
    this.ended = undefined;
    this.started = true;
    return result;
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.started) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, this.ended);
    const result = await this.env.step(action);
    this.elapsed += 1;
    if (this.elapsed >= this.maxSteps && !result.terminated && !result.truncated) {
      result.truncated = true;
      result.info = { ...result.info, truncatedBy: 'time-limit' };
    }
    if (result.terminated) this.ended = 'terminated';
    else if (result.truncated) this.ended = 'truncated';
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.env.close();
  }
}
