import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { copyObservation as copy, type Observation, type Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSource, TaskSplit } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { type BookingGoal, bookingReward } from './goals.ts';
import { generateInventory } from './inventory.ts';
import { pageActions, renderPage } from './pages.ts';
import { BookingSite } from './site.ts';
import { BOOKING, bookingSpec, bookingTask, bookingTasks, TEST_TASK_COUNT } from './tasks.ts';

/** Which task split a booking env draws from, and how many train tasks. */
export interface BookingOptions {
  /** Split that `reset({ seed })` draws tasks from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** How many train tasks `reset({ seed })` draws from. Default 10,000. */
  trainPoolSize?: number;
}

/**
 * A multi-step booking workflow: search a town's rooms for a stay, compare the results, open
 * rooms to see their features, book one, fill in the guest's details, review and confirm.
 * Actions are `set[field=value]` on the page's form (free-text fields are listed as templates,
 * e.g. `set[arrival=<date>]`) and `click[label]` for a button or a listed room.
 *
 * Forms take any text and check it on submit: a wrong field comes back as the same page with
 * `! Error: …` lines, not as an invalid action. Only actions the page does not offer (a button it
 * lacks, a field of another page, malformed syntax) are invalid and change nothing. Confirming
 * ends the episode, for good: reward 1 when the booking is the one asked for (the cheapest free
 * room with what the request asks, for its exact stay, guest, phone and breakfast), read from
 * the hidden inventory; else 0.
 *
 * This class has no step limit; {@link makeBooking} wraps it in {@link TimeLimit}.
 */
export class BookingEnv implements Env, TaskSource {
  readonly name = BOOKING;
  private readonly split: TaskSplit;
  private readonly trainPoolSize: number;
  private task: Task | undefined;
  private goal: BookingGoal | undefined;
  private site: BookingSite | undefined;
  private current: Observation | undefined;
  private closed = false;

  constructor(options: BookingOptions = {}) {
    this.split = options.split ?? 'train';
    this.trainPoolSize = options.trainPoolSize ?? 10_000;
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    return bookingTasks(split, count);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    const spec = bookingSpec(task);
    this.task = task;
    this.goal = spec.goal;
    this.site = new BookingSite(generateInventory(spec.inventorySeed));
    this.current = this.observe();
    return { observation: copy(this.current), info: { task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const { site, goal, current } = this;
    if (!site || !goal || !current) throw new EnvNotResetError(this.name);
    if (site.page === 'done') throw new EpisodeEndedError(this.name, 'terminated');

    const reply = site.execute(action);
    if (!reply.ok) {
      return {
        observation: copy(current),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: reply.reason },
      };
    }
    this.current = this.observe();
    return {
      observation: copy(this.current),
      reward: reply.booking ? bookingReward(goal, site.inventory, reply.booking) : 0,
      terminated: reply.booking !== undefined,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.site = undefined;
  }

  private drawTask(seed: number): Task {
    const rng = new Rng(seed).fork('booking-task-draw');
    const index =
      this.split === 'test'
        ? rng.int(TEST_TASK_COUNT)
        : TEST_TASK_COUNT + rng.int(this.trainPoolSize);
    return bookingTask(index);
  }

  private observe(): Observation {
    const site = this.site as BookingSite;
    return {
      text: renderPage(site),
      instruction: this.task?.instruction ?? '',
      actions: pageActions(site),
    };
  }
}

/** The booking step limit: a booking takes 10–20 actions when done right. */
export const BOOKING_MAX_STEPS = 40;

/** `BookingOptions` and the step limit of `makeBooking`. */
export interface MakeBookingOptions extends BookingOptions {
  /** Step limit; default {@link BOOKING_MAX_STEPS}. */
  maxSteps?: number;
}

/** The booking site as users get it: {@link BookingEnv} inside a {@link TimeLimit}. */
export function makeBooking(options: MakeBookingOptions = {}): TimeLimit {
  return new TimeLimit(new BookingEnv(options), options.maxSteps ?? BOOKING_MAX_STEPS);
}
