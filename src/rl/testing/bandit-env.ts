import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Observation, Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult } from '../../envs/env.ts';

const COLOURS = ['red', 'blue', 'green', 'yellow', 'purple'];
const ITEMS = ['mug', 'lamp', 'sock', 'chair', 'kite', 'bottle'];

/**
 * A one-step contextual bandit in text: "pick the green lamp" among five coloured lamps in random
 * order. Reward 1 for the right one. A random policy scores 0.2; the optimum is 1. Used to check
 * that a policy and a trainer can learn at all.
 */
export class PickBanditEnv implements Env {
  readonly name = 'pick-bandit';
  private task: Task | undefined;
  private done = false;
  private closed = false;
  private current: Observation | undefined;

  /** The first `count` tasks of the bandit. */
  static tasks(count = 30): Task[] {
    return Array.from({ length: count }, (_, i) => {
      const colour = COLOURS[i % COLOURS.length] as string;
      const item = ITEMS[Math.floor(i / COLOURS.length) % ITEMS.length] as string;
      return {
        id: `pick/${i}`,
        env: 'pick-bandit',
        instruction: `pick the ${colour} ${item}`,
        spec: { colour, item },
        origin: 'seed',
      };
    });
  }

  async reset({ task, seed = 0 }: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const rng = new Rng(seed);
    this.task = task ?? rng.pick(PickBanditEnv.tasks());
    const item = (this.task.spec as { item: string }).item;
    this.done = false;
    this.current = {
      text: 'Which one?',
      instruction: this.task.instruction,
      actions: rng.shuffle(COLOURS).map((c) => `click[${c} ${item}]`),
    };
    return { observation: { ...this.current }, info: { task: this.task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.task || !this.current) throw new EnvNotResetError(this.name);
    if (this.done) throw new EpisodeEndedError(this.name, 'terminated');
    if (!this.current.actions?.includes(action)) {
      return {
        observation: { ...this.current },
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: `not one of the listed actions` },
      };
    }
    this.done = true;
    const { colour, item } = this.task.spec as { colour: string; item: string };
    const reward = action === `click[${colour} ${item}]` ? 1 : 0;
    return {
      observation: {
        text: reward ? 'Right.' : 'Wrong.',
        instruction: this.task.instruction,
        actions: [],
      },
      reward,
      terminated: true,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
