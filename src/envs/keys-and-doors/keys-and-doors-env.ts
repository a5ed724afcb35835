import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { copyObservation as copy, type Observation, type Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSource, TaskSplit } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { KeysAndDoorsGame, type KeysGoal } from './game.ts';
import { generateLayout } from './layout.ts';
import {
  KEYS_AND_DOORS,
  keysAndDoorsSpec,
  keysAndDoorsTask,
  keysAndDoorsTasks,
  TEST_TASK_COUNT,
} from './tasks.ts';

/** Which task split a keys-and-doors env draws from, and how many train tasks. */
export interface KeysAndDoorsOptions {
  /** Split that `reset({ seed })` draws tasks from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** How many train tasks `reset({ seed })` draws from. Default 10,000. */
  trainPoolSize?: number;
}

/**
 * A text game with hidden state: a house of rooms joined by passages and locked doors, closed
 * containers whose contents show only once opened, keys of several metals, and things to move.
 * The goal is to leave a thing in a room or put it in a container; the thing usually lies behind
 * a locked door, and its key may lie behind another or inside a container.
 *
 * Each observation's text is the last command's feedback and the room as the player sees it
 * (exits with their doors and locks, rooms beyond named once visited, containers and items in
 * sight, what they carry); `actions` lists the admissible commands. Reaching the goal ends the
 * episode with reward 1. A key tried in a lock of another metal snaps and jams the door: the
 * episode ends with reward 0, the irreversible mistake. Inadmissible commands change nothing.
 *
 * This class has no step limit; {@link makeKeysAndDoors} wraps it in {@link TimeLimit}.
 */
export class KeysAndDoorsEnv implements Env, TaskSource {
  readonly name = KEYS_AND_DOORS;
  private readonly split: TaskSplit;
  private readonly trainPoolSize: number;
  private task: Task | undefined;
  private goal: KeysGoal | undefined;
  private game: KeysAndDoorsGame | undefined;
  private current: Observation | undefined;
  private ended = false;
  private closed = false;

  constructor(options: KeysAndDoorsOptions = {}) {
    this.split = options.split ?? 'train';
    this.trainPoolSize = options.trainPoolSize ?? 10_000;
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    return keysAndDoorsTasks(split, count);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    const spec = keysAndDoorsSpec(task);
    this.task = task;
    this.goal = spec.goal;
    this.game = new KeysAndDoorsGame(generateLayout(spec.layoutSeed));
    this.ended = false;
    this.current = this.observe(`Your task: ${task.instruction}`);
    return { observation: copy(this.current), info: { task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const { game, goal, current } = this;
    if (!game || !goal || !current) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, 'terminated');

    const reply = game.execute(action);
    if (!reply.ok) {
      return {
        observation: copy(current),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: reply.reason },
      };
    }
    const won = game.reached(goal);
    this.ended = won || reply.jammed === true;
    this.current = this.observe(reply.feedback);
    return {
      observation: copy(this.current),
      reward: won ? 1 : 0,
      terminated: this.ended,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.game = undefined;
  }

  private drawTask(seed: number): Task {
    const rng = new Rng(seed).fork('keys-and-doors-task-draw');
    const index =
      this.split === 'test'
        ? rng.int(TEST_TASK_COUNT)
        : TEST_TASK_COUNT + rng.int(this.trainPoolSize);
    return keysAndDoorsTask(index);
  }

  private observe(feedback: string): Observation {
    const game = this.game as KeysAndDoorsGame;
    return {
      text: feedback ? `${feedback}\n\n${game.describe()}` : game.describe(),
      instruction: this.task?.instruction ?? '',
      actions: game.admissibleCommands(),
    };
  }
}

/** The game's step limit: goals take 6–30 commands when played well. */
export const KEYS_AND_DOORS_MAX_STEPS = 50;

/** `KeysAndDoorsOptions` and the step limit of `makeKeysAndDoors`. */
export interface MakeKeysAndDoorsOptions extends KeysAndDoorsOptions {
  /** Step limit; default {@link KEYS_AND_DOORS_MAX_STEPS}. */
  maxSteps?: number;
}

/** The game as users get it: {@link KeysAndDoorsEnv} inside a {@link TimeLimit}. */
export function makeKeysAndDoors(options: MakeKeysAndDoorsOptions = {}): TimeLimit {
  return new TimeLimit(new KeysAndDoorsEnv(options), options.maxSteps ?? KEYS_AND_DOORS_MAX_STEPS);
}
