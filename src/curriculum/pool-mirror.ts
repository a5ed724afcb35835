/**
 * A task-pool handle's copy of the pool's tasks in memory (tasks never change once added), with
 * the keys that tell duplicates apart, and the check that decides what an add stores.
 */
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import { isRealizable } from './realizable.ts';
import { normalizeInstruction, taskIdentity } from './task-identity.ts';
import type { PooledTask, PoolFilter } from './task-pool.ts';

/** A `tasks` row as both databases store it. */
export interface TaskRow {
  seq: number;
  json: string;
  realizable: number;
  created_iteration: number | null;
}

/** The tasks of a pool as far as one handle has read them, in the order they were added. */
export class PoolMirror {
  /** The `seq` of the last row taken in: a refresh reads the rows after it. */
  upTo = 0;
  private readonly entries = new Map<string, PooledTask>();
  private readonly identities = new Set<string>();
  /** `env|normalised instruction` of every task: a task without a spec must not repeat one. */
  private readonly instructions = new Set<string>();

  get size(): number {
    return this.entries.size;
  }

  get(id: string): PooledTask | undefined {
    return this.entries.get(id);
  }

  tasks(filter: PoolFilter = {}): PooledTask[] {
    return [...this.entries.values()].filter(
      (e) =>
        (filter.env === undefined || e.task.env === filter.env) &&
        (filter.origin === undefined || e.task.origin === filter.origin) &&
        (filter.realizable === undefined || e.realizable === filter.realizable) &&
        (filter.before === undefined ||
          e.createdIteration === undefined ||
          e.createdIteration < filter.before),
    );
  }

  isDuplicate(task: Task): boolean {
    return (
      this.entries.has(task.id) ||
      this.identities.has(taskIdentity(task)) ||
      (task.spec === undefined && this.instructions.has(instructionKey(task)))
    );
  }

  /** The iteration each task was generated in; undefined for seed tasks. */
  createdIterations(): Array<number | undefined> {
    return [...this.entries.values()].map((e) => e.createdIteration);
  }

  /** Takes in stored rows (in `seq` order); rows already known are ignored. */
  takeIn(rows: readonly TaskRow[]): void {
    for (const row of rows) {
      const entry: PooledTask = {
        task: JSON.parse(row.json) as Task,
        realizable: !!row.realizable,
      };
      if (row.created_iteration !== null) entry.createdIteration = row.created_iteration;
      this.remember(entry);
      this.upTo = Math.max(this.upTo, row.seq);
    }
  }

  remember(entry: PooledTask): void {
    this.entries.set(entry.task.id, entry);
    this.identities.add(taskIdentity(entry.task));
    this.instructions.add(instructionKey(entry.task));
  }

  /**
   * The entries an add of `tasks` stores, in order (see `TaskPool.add`); the mirror itself is
   * not changed. Fails with the fix when a task names a parent that neither the pool nor the list
   * before it holds.
   */
  admit(tasks: readonly Task[], createdIteration: number | undefined): PooledTask[] {
    const pending = new PoolMirror();
    const admitted: PooledTask[] = [];
    for (const task of tasks) {
      const known = this.entries.has(task.id) || pending.entries.has(task.id);
      const duplicate =
        task.origin === 'generated' && (this.isDuplicate(task) || pending.isDuplicate(task));
      if (known || duplicate) continue;
      if (
        task.parentId !== undefined &&
        !this.entries.has(task.parentId) &&
        !pending.entries.has(task.parentId)
      ) {
        throw new ConfigError(
          `task ${task.id} names parent ${task.parentId}, which is not in the pool; add the parent first.`,
        );
      }
      const entry: PooledTask = { task, realizable: isRealizable(task) };
      if (createdIteration !== undefined) entry.createdIteration = createdIteration;
      pending.remember(entry);
      admitted.push(entry);
    }
    return admitted;
  }
}

function instructionKey(task: Task): string {
  return `${task.env}|${normalizeInstruction(task.instruction)}`;
}
