/**
 * What a curriculum selected over a training run, read back from its task pool: how many of the
 * played tasks were seed tasks and how many its variations, which share of each was informative
 * (solved sometimes, so GRPO learns from it), and the mix of templates the played tasks came
 * from. It says why a curriculum helps or does not: a curriculum whose variations are never
 * informative, or all of one template, only takes batch places from the seed tasks.
 */
import type { Task } from '../core/types.ts';
import type { GroupStats, PoolIterationStats, TaskPool } from './task-pool.ts';

/** Played rollout groups of one origin and how many of them were informative. */
export interface PlayedShare {
  /** Rollout groups played (one task in one iteration). */
  groups: number;
  /** Share of those groups solved sometimes but not always. */
  informativeShare: number;
  /** Share of their episodes that succeeded (by the training env's rewards). */
  successRate: number;
}

/** What a curriculum selected in one run (see the module doc). */
export interface CurriculumReport {
  /** Per iteration: pool size, new tasks, informative share, mean V (the pool's own figures). */
  iterations: PoolIterationStats[];
  /** Generated tasks in the pool at the end. */
  generatedTasks: number;
  /** The played groups of seed tasks and of generated ones. */
  played: { seed: PlayedShare; generated: PlayedShare };
  /** Played groups by template (a generated task counts under its parent's template), most first. */
  templateMix: Array<{ template: string; groups: number; generated: number }>;
  /** What the generator reported instead of variations. */
  warnings: number;
}

/**
 * The report of a curriculum's pool after a run. `templateOf` names a task's template (a web
 * task's WebArena `intent_template_id`, say); a generated task without one of its own takes its
 * parent's, and a task with neither counts under `—`.
 */
export async function curriculumReport(
  pool: TaskPool,
  {
    warnings = 0,
    templateOf = () => undefined,
  }: { warnings?: number; templateOf?: (task: Task) => string | undefined } = {},
): Promise<CurriculumReport> {
  const iterations = await pool.iterationStats();
  const groups: GroupStats[] = [];
  for (const { iteration } of iterations) groups.push(...(await pool.groups(iteration)));
  const template = (task: Task | undefined, depth = 0): string => {
    if (!task) return '—';
    const own = templateOf(task);
    if (own !== undefined) return own;
    const parent = task.parentId === undefined ? undefined : pool.get(task.parentId)?.task;
    return depth < 8 && parent ? template(parent, depth + 1) : '—';
  };
  const mix = new Map<string, { groups: number; generated: number }>();
  const byOrigin: Record<Task['origin'], GroupStats[]> = { seed: [], generated: [] };
  for (const group of groups) {
    const task = pool.get(group.taskId)?.task;
    const origin = task?.origin ?? 'seed';
    byOrigin[origin].push(group);
    const entry = mix.get(template(task)) ?? { groups: 0, generated: 0 };
    entry.groups++;
    if (origin === 'generated') entry.generated++;
    mix.set(template(task), entry);
  }
  return {
    iterations,
    generatedTasks: pool.tasks({ origin: 'generated' }).length,
    played: { seed: share(byOrigin.seed), generated: share(byOrigin.generated) },
    templateMix: [...mix]
      .map(([name, counts]) => ({ template: name, ...counts }))
      .sort((a, b) => b.groups - a.groups || (a.template < b.template ? -1 : 1)),
    warnings,
  };
}

function share(groups: readonly GroupStats[]): PlayedShare {
  const attempts = groups.reduce((s, g) => s + g.attempts, 0);
  return {
    groups: groups.length,
    informativeShare:
      groups.length === 0
        ? 0
        : groups.filter((g) => g.successes > 0 && g.successes < g.attempts).length / groups.length,
    successRate: attempts === 0 ? 0 : groups.reduce((s, g) => s + g.successes, 0) / attempts,
  };
}
