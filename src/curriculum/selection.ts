/**
 * Which tasks to vary and how a batch is made up: pure functions of the last iteration's reward
 * variances and a seeded {@link Rng}, so a curriculum run is reproducible and easy to test.
 *
 * DreamGym keeps the agent at the edge of its ability: a task's rollout group has reward variance
 * V = mean over the group of (r_i − r̄)², which for success/failure rewards is p(1 − p), largest
 * for tasks solved about half the time and 0 for tasks always or never solved (those also give
 * GRPO no gradient). New variations are seeded from the highest-V tasks.
 */
import { ConfigError } from '../core/errors.ts';
import type { Rng } from '../core/rng.ts';

/**
 * `variance`: DreamGym's curriculum. `random`: the same share of generated tasks, varied from
 * random parents (ablation of the selection). `off`: uniform over seed tasks, nothing generated
 * (ablation of the whole curriculum).
 */
export const CURRICULUM_MODES = ['off', 'variance', 'random'] as const;
export type CurriculumMode = (typeof CURRICULUM_MODES)[number];

/** A task's score from its latest rollout group. */
export interface ScoredTask {
  taskId: string;
  /** V of the group. */
  variance: number;
}

/** Fails with the list of modes when `mode` is not one of them. */
export function checkMode(mode: string): CurriculumMode {
  if (!(CURRICULUM_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError(
      `unknown curriculum mode "${mode}"; available: ${CURRICULUM_MODES.join(', ')}.`,
    );
  }
  return mode as CurriculumMode;
}

/** Fails unless the generated share λ is in [0, 1]. */
export function checkShare(share: number): number {
  if (!(share >= 0 && share <= 1)) {
    throw new ConfigError(`the generated share λ must be in [0, 1], got ${share}.`);
  }
  return share;
}

/** How many tasks of a batch of `size` are newly generated: round(λ · size); none when off. */
export function generatedSlots(mode: CurriculumMode, size: number, share: number): number {
  return mode === 'off' ? 0 : Math.round(checkShare(share) * size);
}

/**
 * Parent tasks for the next variations, best first; `candidates` are the ids that may be parents.
 * `variance`: the last round's tasks with V > 0, highest V first, ties in random order.
 * `random`: every candidate, in random order. `off`: none.
 */
export function rankParents(
  mode: CurriculumMode,
  lastRound: readonly ScoredTask[],
  candidates: readonly string[],
  rng: Rng,
): string[] {
  if (mode === 'off') return [];
  if (mode === 'random') return rng.shuffle(candidates);
  const allowed = new Set(candidates);
  return rng
    .shuffle(lastRound.filter((s) => s.variance > 0 && allowed.has(s.taskId)))
    .sort((a, b) => b.variance - a.variance)
    .map((s) => s.taskId);
}

/** `count` items drawn uniformly without replacement, leaving out the ids in `exclude`. */
export function drawFromPool<T extends { id: string }>(
  pool: readonly T[],
  count: number,
  exclude: ReadonlySet<string>,
  rng: Rng,
): T[] {
  return rng.sample(
    pool.filter((t) => !exclude.has(t.id)),
    count,
  );
}
