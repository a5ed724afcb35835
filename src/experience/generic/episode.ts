import type { Observation, Step, Task, Trajectory } from '../../core/types.ts';
import { containsValue } from './text.ts';

/** Where an action's value was shown before the action: what it refers to. */
export type Origin = 'state' | 'episode' | 'task' | 'none';

/**
 * One episode as the generic model reads it, a real one from the buffer or the synthetic one
 * being predicted: the instruction, the observations' texts in order, and the actions between
 * them (`actions[i]` led from `texts[i]` to `texts[i + 1]`). Methods take `now`, the index of
 * the current state, so one view serves every step of a real episode.
 */
export class EpisodeView {
  constructor(
    readonly instruction: string,
    readonly texts: readonly string[],
    readonly actions: readonly string[],
    /** `invalid[i]`: the env refused `actions[i]` (the state did not change). */
    readonly invalid: readonly boolean[],
  ) {}

  /** A real trajectory: its initial state, then each step's observation. */
  static ofTrajectory(trajectory: Trajectory): EpisodeView {
    return new EpisodeView(
      trajectory.task.instruction,
      [trajectory.initial.text, ...trajectory.steps.map((s) => s.observation.text)],
      trajectory.steps.map((s) => s.action),
      trajectory.steps.map((s) => s.info?.invalidAction !== undefined),
    );
  }

  /**
   * The episode of a prediction request: how it began (`initial`, when the model knows it; else
   * an empty text stands for it), then the history's observations, the last being the state.
   */
  static ofRequest(
    task: Task,
    history: readonly Step[],
    state: Observation,
    initial?: Observation,
  ): EpisodeView {
    if (history.length === 0) return new EpisodeView(task.instruction, [state.text], [], []);
    const texts = [initial?.text ?? '', ...history.map((s) => s.observation.text)];
    const actions = history.map((s) => s.action);
    const invalid = history.map((s) => s.info?.invalidAction !== undefined);
    if (texts.at(-1) !== state.text) {
      texts.push(state.text);
      actions.push('');
      invalid.push(true);
    }
    return new EpisodeView(task.instruction, texts, actions, invalid);
  }

  /** Index of the last text. */
  get last(): number {
    return this.texts.length - 1;
  }

  /** Where `value` was shown up to `now`: the current state, an earlier one, the task, or nowhere. */
  origin(value: string, now: number): Origin {
    if (containsValue(this.texts[now] ?? '', value)) return 'state';
    if (this.lastShowing(value, now - 1) !== undefined) return 'episode';
    if (containsValue(this.instruction, value)) return 'task';
    return 'none';
  }

  /** The index of the latest text at or before `upTo` that shows `value`, if any. */
  lastShowing(value: string, upTo: number): number | undefined {
    for (let i = Math.min(upTo, this.last); i >= 0; i--)
      if (containsValue(this.texts[i] as string, value)) return i;
    return undefined;
  }

  /** True when `action` was taken (and not refused) before step `now`. */
  tookBefore(action: string, now: number): boolean {
    for (let i = 0; i < now && i < this.actions.length; i++)
      if (this.actions[i] === action && !this.invalid[i]) return true;
    return false;
  }
}
