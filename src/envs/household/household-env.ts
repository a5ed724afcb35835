import {
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Observation, Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSource, TaskSplit } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { intro, NOTHING_HAPPENS } from './feedback.ts';
import { goalReached, type HouseholdGoal } from './goals.ts';
import { generateScene } from './scene.ts';
import { householdSpec, householdTask, householdTasks, TEST_TASK_COUNT } from './tasks.ts';
import { HouseholdWorld } from './world.ts';

/** Which task split a household env draws from, and how many train tasks. */
export interface HouseholdOptions {
  /** Split that `reset({ seed })` draws tasks from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** How many train tasks `reset({ seed })` draws from. Default 10,000. */
  trainPoolSize?: number;
}

/**
 * A text household after ALFWorld's text mode (Shridhar et al., 2021) over generated rooms.
 * Commands and feedback are ALFWorld's (`go to cabinet 1`, "You arrive at cabinet 1. The cabinet 1
 * is closed."); the observation's `actions` are ALFWorld's admissible commands for the state.
 * Reaching the goal ends the episode with reward 1; every other step earns 0.
 *
 * Invalid commands: ALFWorld answers "Nothing happens." and its text observation becomes that.
 * Our Env contract instead promises that an invalid action changes nothing, observation included
 * (the conformance suite checks it), so a policy can tell a refused command from a real state
 * change by the observation alone. We keep that promise: the observation stays the previous one,
 * `info.invalidAction` says why in words, and `info.feedback` carries ALFWorld's literal
 * "Nothing happens.". `info.feedback` is always what ALFWorld would have printed for the step, so
 * an ALFWorld-faithful transcript (for prompts, or for comparing with real ALFWorld data) is the
 * sequence of `info.feedback`, while `observation.text` is the current state's last real feedback.
 *
 * This class has no step limit; {@link makeHousehold} wraps it in {@link TimeLimit} (50 steps).
 */
export class HouseholdEnv implements Env, TaskSource {
  readonly name = 'household';
  private readonly split: TaskSplit;
  private readonly trainPoolSize: number;
  private task: Task | undefined;
  private goal: HouseholdGoal | undefined;
  private world: HouseholdWorld | undefined;
  private current: Observation | undefined;
  private ended = false;
  private closed = false;

  constructor(options: HouseholdOptions = {}) {
    this.split = options.split ?? 'train';
    this.trainPoolSize = options.trainPoolSize ?? 10_000;
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    return householdTasks(split, count);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    const spec = householdSpec(task);
    let world: HouseholdWorld;
    try {
      world = HouseholdWorld.fromScene(generateScene(spec.scene));
    } catch (error) {
      throw new TaskError(`task ${task.id}: cannot build its scene: ${(error as Error).message}`);
    }
    this.task = task;
    this.goal = spec.goal;
    this.world = world;
    this.ended = false;
    this.current = this.observe(
      intro(
        world.scene.receptacles.map((r) => r.name),
        task.instruction,
      ),
    );
    return { observation: this.copy(this.current), info: { task, scene: { ...spec.scene } } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const world = this.world;
    const goal = this.goal;
    if (!world || !goal || !this.current) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, 'terminated');

    const outcome = world.execute(action);
    if (!outcome.ok) {
      return {
        observation: this.copy(this.current),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: outcome.reason, feedback: NOTHING_HAPPENS },
      };
    }
    const won = goalReached(world, goal);
    this.ended = won;
    this.current = this.observe(outcome.feedback);
    return {
      observation: this.copy(this.current),
      reward: won ? 1 : 0,
      terminated: won,
      truncated: false,
      info: { feedback: outcome.feedback },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.world = undefined;
  }

  private drawTask(seed: number): Task {
    const rng = new Rng(seed).fork('household-task-draw');
    const index =
      this.split === 'test'
        ? rng.int(TEST_TASK_COUNT)
        : TEST_TASK_COUNT + rng.int(this.trainPoolSize);
    return householdTask(index);
  }

  private observe(text: string): Observation {
    const world = this.world as HouseholdWorld;
    return {
      text,
      instruction: this.task?.instruction ?? '',
      actions: world.admissibleCommands(),
    };
  }

  private copy(observation: Observation): Observation {
    return { ...observation, actions: [...(observation.actions ?? [])] };
  }
}

/** `HouseholdOptions` and the step limit of `makeHousehold`. */
export interface MakeHouseholdOptions extends HouseholdOptions {
  /** Step limit (ALFWorld's usual evaluation budget of 50). */
  maxSteps?: number;
}

/** ALFWorld's step limit. */
export const HOUSEHOLD_MAX_STEPS = 50;

/** The household env as users get it: {@link HouseholdEnv} inside a 50-step {@link TimeLimit}. */
export function makeHousehold(options: MakeHouseholdOptions = {}): TimeLimit {
  return new TimeLimit(new HouseholdEnv(options), options.maxSteps ?? HOUSEHOLD_MAX_STEPS);
}
