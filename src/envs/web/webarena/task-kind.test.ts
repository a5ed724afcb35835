import { describe, expect, it } from 'vitest';
import type { Task } from '../../../core/types.ts';
import { forumTasks } from '../sites/forum/forum-tasks.ts';
import { storeTasks } from '../sites/store/store-tasks.ts';
import { webTaskKind } from './task-kind.ts';

const task = (evalTypes: unknown): Task => ({
  id: 't',
  env: 'webarena@x.json',
  instruction: 'do it',
  spec: { eval: { eval_types: evalTypes } },
  origin: 'seed',
});

describe('webTaskKind', () => {
  it('names a task by how it is judged: answer, URL or site state', () => {
    expect(webTaskKind(task(['string_match']))).toBe('information');
    expect(webTaskKind(task(['url_match']))).toBe('navigation');
    expect(webTaskKind(task(['program_html']))).toBe('change');
    // A config that checks the site is a change whatever else it checks; else the URL decides.
    expect(webTaskKind(task(['url_match', 'program_html']))).toBe('change');
    expect(webTaskKind(task(['string_match', 'url_match']))).toBe('navigation');
  });

  it('gives no kind to a task without a WebArena config', () => {
    expect(webTaskKind(task(undefined))).toBeUndefined();
    expect(webTaskKind({ ...task([]), spec: undefined })).toBeUndefined();
    expect(webTaskKind({ ...task([]), spec: { goal: 'x' } })).toBeUndefined();
  });

  it('finds all three kinds among the built-in web apps’ test tasks', () => {
    for (const source of [forumTasks(), storeTasks()]) {
      const kinds = new Set(source.tasks('test').map(webTaskKind));
      expect([...kinds].sort()).toEqual(['change', 'information', 'navigation']);
    }
  });
});
