import { describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { curriculumReport } from './curriculum-report.ts';
import { SqliteTaskPool } from './sqlite-task-pool.ts';
import { generatedTask } from './task-identity.ts';

const seed = (id: string, template: string): Task => ({
  id,
  env: 'web:x',
  instruction: `task ${id}`,
  spec: { intent_template_id: template },
  origin: 'seed',
});

describe('curriculumReport', () => {
  it('splits played groups by origin and counts variations under their parent\u2019s template', async () => {
    const [a, b] = [seed('a', 'T1'), seed('b', 'T2')];
    const child = generatedTask(a, 'task a, varied');
    const pool = SqliteTaskPool.open();
    await pool.add([a, b]);
    await pool.recordGroups(0, [
      { taskId: 'a', reward: 1 },
      { taskId: 'a', reward: 0 },
      { taskId: 'b', reward: 0 },
      { taskId: 'b', reward: 0 },
    ]);
    await pool.add([child], 1);
    await pool.recordGroups(1, [
      { taskId: child.id, reward: 1 },
      { taskId: child.id, reward: 1 },
      { taskId: 'b', reward: 1 },
      { taskId: 'b', reward: 0 },
    ]);
    const report = await curriculumReport(pool, {
      warnings: 2,
      templateOf: (t) =>
        (t.spec as { intent_template_id?: string } | undefined)?.intent_template_id,
    });
    expect(report.played.seed).toEqual({ groups: 3, informativeShare: 2 / 3, successRate: 2 / 6 });
    expect(report.played.generated).toEqual({ groups: 1, informativeShare: 0, successRate: 1 });
    expect(report.templateMix).toEqual([
      { template: 'T1', groups: 2, generated: 1 },
      { template: 'T2', groups: 2, generated: 0 },
    ]);
    expect(report.generatedTasks).toBe(1);
    expect(report.iterations.map((i) => i.tasksPlayed)).toEqual([2, 2]);
    expect(report.warnings).toBe(2);
  });
});
