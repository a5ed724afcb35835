import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph, realEnvModules } from '../../core/testing/module-graph.ts';
import { isSuccess } from '../../core/types.ts';
import { makeHousehold } from '../../envs/household/household-env.ts';
import { householdTasks } from '../../envs/household/tasks.ts';
import { collect } from '../../rl/collect.ts';
import { HouseholdExplorer } from './household-explorer.ts';

describe('HouseholdExplorer', () => {
  it('solves most test tasks from what it sees, with admissible commands only', async () => {
    const tasks = householdTasks('test', 120);
    const episodes = await collect({
      env: makeHousehold(),
      policy: new HouseholdExplorer(),
      tasks,
      episodes: tasks.length,
      seed: 0,
      provenance: 'real-online',
    });
    const success = episodes.filter(isSuccess).length / episodes.length;
    expect(success).toBeGreaterThan(0.85);
    for (const t of episodes) {
      for (const step of t.steps) expect(step.info?.invalidAction).toBeUndefined();
    }
  });

  it('never reads the scene: it imports no real env module', () => {
    const graph = moduleGraph([join(import.meta.dirname, 'household-explorer.ts')]);
    expect(realEnvModules(graph)).toEqual([]);
    expect(graph.size).toBeGreaterThan(2);
  });
});
