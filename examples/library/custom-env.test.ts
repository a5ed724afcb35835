// A custom env checked by dreamgym's Env conformance suite under vitest.
import {
  type Env,
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  type ResetOptions,
  type ResetResult,
  type StepResult,
  type Task,
} from 'dreamgym';
import { runEnvConformance } from 'dreamgym/testing';
import { describe, it } from 'vitest';

/** Guess a number from 1 to 3: one step, reward 1 for the right guess. */
class GuessEnv implements Env {
  readonly name = 'guess';
  private task: Task | undefined;
  private done = false;
  private closed = false;

  async reset({ task, seed = 0 }: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const answer = (seed % 3) + 1;
    this.task = task ?? {
      id: `guess-${answer}-${seed % 7}`,
      env: this.name,
      instruction: `Guess ${answer} (round ${seed % 7}).`,
      origin: 'seed',
    };
    this.done = false;
    return { observation: this.observe(), info: { task: this.task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.task) throw new EnvNotResetError(this.name);
    if (this.done) throw new EpisodeEndedError(this.name, 'terminated');
    const guess = /^guess\[([123])\]$/.exec(action)?.[1];
    if (!guess)
      return {
        observation: this.observe(),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: `"${action}" is not guess[1|2|3]` },
      };
    this.done = true;
    const right = this.task.instruction.startsWith(`Guess ${guess} `);
    return {
      observation: { ...this.observe(), text: right ? 'Right.' : 'Wrong.', actions: [] },
      reward: right ? 1 : 0,
      terminated: true,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private observe() {
    return {
      text: 'Pick a number.',
      instruction: this.task?.instruction ?? '',
      actions: ['guess[1]', 'guess[2]', 'guess[3]'],
    };
  }
}

runEnvConformance({ name: 'guess', makeEnv: () => new GuessEnv() }, { describe, it });
