import type { Env, ResetResult, StepResult } from '../../env.ts';

/**
 * A corridor for wrapper tests: `forward` moves one cell (with a line of reasoning, as a
 * synthetic env's steps carry one) and reaching cell `length` terminates with reward 1; `fail`
 * ends the episode truncated as a synthetic env does when its model fails; anything else is an
 * invalid action.
 */
export class Corridor implements Env {
  readonly name = 'corridor';
  private position = 0;
  constructor(private readonly length: number) {}
  async reset(): Promise<ResetResult> {
    this.position = 0;
    const task = { id: 'c', env: this.name, instruction: 'walk', origin: 'seed' as const };
    return { observation: this.observation(), info: { task } };
  }
  async step(action: string): Promise<StepResult> {
    if (action === 'fail') {
      return {
        observation: this.observation(),
        reward: 0,
        terminated: false,
        truncated: true,
        info: { truncatedBy: 'model-error', reasoning: 'the model broke' },
      };
    }
    if (action === 'forward') this.position += 1;
    const done = this.position >= this.length;
    return {
      observation: this.observation(),
      reward: done ? 1 : 0,
      terminated: done,
      truncated: false,
      info:
        action === 'forward'
          ? { reasoning: `moved to ${this.position}` }
          : { invalidAction: 'only forward' },
    };
  }
  async close(): Promise<void> {}
  private observation() {
    return { text: `cell ${this.position}`, instruction: 'walk', actions: ['forward', 'wait'] };
  }
}
