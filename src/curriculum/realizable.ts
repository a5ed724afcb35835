/**
 * Whether a real env can build a task. Tasks from a real env's split and the offline mutators'
 * variations can; the LLM generator's tasks have no spec and run only in a synthetic env.
 */
import { TaskError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import { householdSpec } from '../envs/household/tasks.ts';
import { webshopSpec } from '../envs/webshop/goals.ts';

/** The built-in envs' own spec checks; they throw a {@link TaskError} for a spec they cannot use. */
const SPEC_CHECKS: Readonly<Record<string, (task: Task) => unknown>> = {
  webshop: webshopSpec,
  household: householdSpec,
};

/**
 * True when the task has a spec its env accepts. For env families without a built-in check (a
 * remote AgentGym env, say) any spec counts: only that env can say more.
 */
export function isRealizable(task: Task): boolean {
  if (task.spec === undefined) return false;
  const check = SPEC_CHECKS[task.env];
  if (!check) return true;
  try {
    check(task);
    return true;
  } catch (error) {
    if (error instanceof TaskError) return false;
    throw error;
  }
}
