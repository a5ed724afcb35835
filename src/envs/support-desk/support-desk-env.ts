import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { copyObservation as copy, type Observation, type Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSource, TaskSplit } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { generateDb } from './db.ts';
import { SupportDesk, TOOLS } from './desk.ts';
import { finalReward, type SupportGoal } from './goals.ts';
import {
  SUPPORT_DESK,
  supportDeskSpec,
  supportDeskTask,
  supportDeskTasks,
  TEST_TASK_COUNT,
} from './tasks.ts';

/** Which task split a support-desk env draws from, and how many train tasks. */
export interface SupportDeskOptions {
  /** Split that `reset({ seed })` draws tasks from when no task is given. Default `train`. */
  split?: TaskSplit;
  /** How many train tasks `reset({ seed })` draws from. Default 10,000. */
  trainPoolSize?: number;
}

/**
 * A tool-calling customer-support desk (in the spirit of tau-bench, with its own shop): a ticket
 * from a customer, a hidden database of customers, products and orders, and six tools called as
 * `tool[argument]` — `find_customer[name]`, `get_customer[C-1234]`, `get_order[O-1234]`,
 * `cancel_order[O-1234]`, `refund[O-1234]`, `answer[text]`. Each observation's text is the last
 * tool result as JSON.
 *
 * The ticket names its order only by a product, and customers share names (a namesake is told
 * apart by town), so the agent must find the right customer, read their orders and act on the
 * right one. `answer[…]` ends the episode, as does a cancel or refund that goes through: reward 1
 * when the answer matches the hidden database, or the change is the one asked for on the right
 * order; else 0 — cancelling someone else's order cannot be undone. Refused changes (a shipped
 * order cannot be cancelled) and lookups that find nothing are tool answers, not invalid actions.
 *
 * This class has no step limit; {@link makeSupportDesk} wraps it in {@link TimeLimit}.
 */
export class SupportDeskEnv implements Env, TaskSource {
  readonly name = SUPPORT_DESK;
  private readonly split: TaskSplit;
  private readonly trainPoolSize: number;
  private task: Task | undefined;
  private goal: SupportGoal | undefined;
  private desk: SupportDesk | undefined;
  private current: Observation | undefined;
  private ended = false;
  private closed = false;

  constructor(options: SupportDeskOptions = {}) {
    this.split = options.split ?? 'train';
    this.trainPoolSize = options.trainPoolSize ?? 10_000;
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    return supportDeskTasks(split, count);
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    const spec = supportDeskSpec(task);
    this.task = task;
    this.goal = spec.goal;
    this.desk = new SupportDesk(generateDb(spec.dbSeed));
    this.ended = false;
    this.current = this.observe({ ticket: 'open', tools: [...TOOLS] });
    return { observation: copy(this.current), info: { task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const { desk, goal, current } = this;
    if (!desk || !goal || !current) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, 'terminated');

    const reply = desk.call(action);
    if (!reply.ok) {
      return {
        observation: copy(current),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: reply.reason },
      };
    }
    this.ended = reply.final !== undefined;
    this.current = this.observe(reply.result);
    return {
      observation: copy(this.current),
      reward: reply.final ? finalReward(goal, desk.db, reply.final) : 0,
      terminated: this.ended,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.desk = undefined;
  }

  private drawTask(seed: number): Task {
    const rng = new Rng(seed).fork('support-desk-task-draw');
    const index =
      this.split === 'test'
        ? rng.int(TEST_TASK_COUNT)
        : TEST_TASK_COUNT + rng.int(this.trainPoolSize);
    return supportDeskTask(index);
  }

  private observe(result: Record<string, unknown>): Observation {
    return {
      text: JSON.stringify(result),
      instruction: this.task?.instruction ?? '',
      actions: this.desk?.actions() ?? [],
    };
  }
}

/** The support desk's step limit: a ticket takes 4–8 calls when done right. */
export const SUPPORT_DESK_MAX_STEPS = 20;

/** `SupportDeskOptions` and the step limit of `makeSupportDesk`. */
export interface MakeSupportDeskOptions extends SupportDeskOptions {
  /** Step limit; default {@link SUPPORT_DESK_MAX_STEPS}. */
  maxSteps?: number;
}

/** The support desk as users get it: {@link SupportDeskEnv} inside a {@link TimeLimit}. */
export function makeSupportDesk(options: MakeSupportDeskOptions = {}): TimeLimit {
  return new TimeLimit(new SupportDeskEnv(options), options.maxSteps ?? SUPPORT_DESK_MAX_STEPS);
}
