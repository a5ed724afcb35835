/**
 * When two tasks are the same task, and the ids of generated tasks.
 *
 * A task with a spec is its spec, whatever the wording: two phrasings of one webshop goal, or of
 * one household goal in one room, are one task to the real env. A task without a spec is nothing
 * but its words, so its identity is its normalised instruction. Generated ids are derived from the
 * identity, so generating the same task twice gives the same id.
 */
import { createHash } from 'node:crypto';
import { words } from '../core/text.ts';
import type { Task } from '../core/types.ts';

/** Lower-cased words and numbers joined by single spaces: case, punctuation and spacing do not count. */
export function normalizeInstruction(instruction: string): string {
  return words(instruction).join(' ');
}

/** A key equal for two tasks exactly when they are the same task (see the module doc). */
export function taskIdentity(task: Task): string {
  return task.spec === undefined
    ? `${task.env}|text|${normalizeInstruction(task.instruction)}`
    : `${task.env}|spec|${canonicalJson(task.spec)}`;
}

/** A generated variation of `parent`: same env, `origin: 'generated'`, id from its identity. */
export function generatedTask(
  parent: Task,
  instruction: string,
  spec?: Record<string, unknown>,
): Task {
  const task: Task = {
    id: '',
    env: parent.env,
    instruction,
    origin: 'generated',
    parentId: parent.id,
  };
  if (spec !== undefined) task.spec = spec;
  const hash = createHash('sha1').update(taskIdentity(task)).digest('hex').slice(0, 12);
  task.id = `${parent.env}/gen/${hash}`;
  return task;
}

/**
 * JSON with object keys sorted, lists of plain values sorted and `instruction` fields left out
 * (webshop goals carry their wording). Lists of plain values in specs are sets (a goal's wanted
 * attributes), so their order must not make two tasks differ.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => {
    if (key === 'instruction') return undefined;
    if (Array.isArray(v)) {
      return v.every((x) => typeof x !== 'object' || x === null) ? [...v].sort() : v;
    }
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
