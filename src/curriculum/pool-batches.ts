/**
 * The batches a task pool hands out to index-less resets, a slot per reset: slot s of a batch
 * gets task ⌊s / groupSize⌋, so `groupSize` consecutive slots — whichever server instance hands
 * them out — make one GRPO group.
 */
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';

/** A taken batch slot as both databases' `UPDATE … RETURNING` answer it. */
export interface BatchRow {
  iteration: number;
  slot: number;
  group_size: number;
  task_ids: string;
}

/** The id of the task a batch slot gets. */
export function slotTask(row: BatchRow): string {
  const ids = JSON.parse(row.task_ids) as string[];
  return ids[Math.floor(row.slot / row.group_size)] as string;
}

/** The ids of a new batch's tasks; each must be pooled (`known`), and the batch not empty. */
export function batchIds(tasks: readonly Task[], known: (id: string) => boolean): string[] {
  if (tasks.length === 0) {
    throw new ConfigError(
      'the curriculum made an empty batch: it has no tasks to hand out (does the env have train tasks?).',
    );
  }
  const stray = tasks.find((t) => !known(t.id));
  if (stray) {
    throw new ConfigError(
      `batch task ${stray.id} is not in the task pool: a batch hands out pooled tasks only.`,
    );
  }
  return tasks.map((t) => t.id);
}
