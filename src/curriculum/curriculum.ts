/**
 * DreamGym's curriculum as a {@link TaskSchedule}. Each batch holds a share λ of new variations of
 * the tasks whose rollouts varied most in the last iteration (the agent's edge), and the rest
 * drawn uniformly from the pool as it stood before the iteration. All state is in the task pool,
 * so a resumed run continues where it stopped, and asking again for an iteration's batch gives
 * the same batch.
 */
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { Task } from '../core/types.ts';
import { type CurriculumReport, curriculumReport } from './curriculum-report.ts';
import type { TaskGenerator } from './generators/generator.ts';
import { isRealizable } from './realizable.ts';
import { type TaskSchedule, uniformSchedule } from './schedule.ts';
import {
  type CurriculumMode,
  checkMode,
  checkShare,
  drawFromPool,
  generatedSlots,
  rankParents,
} from './selection.ts';
import type { PoolFilter, PoolIterationStats, TaskPool } from './task-pool.ts';

/**
 * How the curriculum picks tasks: by reward variance, at random, or not at all, and how many
 * variations it adds.
 */
export interface CurriculumConfig {
  /** `variance` (DreamGym's), `random` (variations of random parents) or `off` (uniform seed tasks). */
  mode: CurriculumMode;
  /** λ: the share of each batch that is newly generated tasks. */
  generatedShare: number;
  /** Variations asked of each parent task. */
  variationsPerParent: number;
  /** Hand out only tasks a real env can build; set it when the training env is a real one. */
  realizableOnly: boolean;
  seed: number;
}

/** λ = 0.25 is our default, not the paper's: most of each batch stays on known tasks. */
export const DEFAULT_CURRICULUM_CONFIG: CurriculumConfig = {
  mode: 'variance',
  generatedShare: 0.25,
  variationsPerParent: 2,
  realizableOnly: false,
  seed: 0,
};

/**
 * What a curriculum works with: the task pool, the env's train tasks and a generator of variations.
 */
export interface CurriculumOptions {
  /** Where its state lives; every process whose curriculum shares the pool shares the state. */
  pool: TaskPool;
  /**
   * The env's train tasks, never test tasks (variations reuse what seed goals say); added to the
   * pool (unless it holds them already) before the first batch.
   */
  seedTasks: readonly Task[];
  /** Makes the variations; not needed when the mode is `off`. */
  generator?: TaskGenerator;
}

/**
 * DreamGym's curriculum: each iteration, picks the tasks whose episode rewards varied most (the
 * informative ones for GRPO) and adds harder variations of them.
 */
export class Curriculum implements TaskSchedule {
  readonly config: CurriculumConfig;
  /** What generators reported instead of variations (LLM failures, unusable answers). */
  readonly warnings: Array<{ iteration: number; message: string }> = [];
  private readonly pool: TaskPool;
  private readonly generator: TaskGenerator | undefined;
  private readonly seedTasks: readonly Task[];
  /** The seed tasks' add, started by the first batch. */
  private seeded: Promise<unknown> | undefined;
  /** The iteration of the last batch handed out: `record` files rollouts under it. */
  private batchIteration: number | undefined;

  constructor(options: CurriculumOptions, overrides: Partial<CurriculumConfig> = {}) {
    this.config = { ...DEFAULT_CURRICULUM_CONFIG, ...overrides };
    const { mode, generatedShare, variationsPerParent } = this.config;
    checkMode(mode);
    checkShare(generatedShare);
    if (!Number.isInteger(variationsPerParent) || variationsPerParent < 1) {
      throw new ConfigError(
        `variationsPerParent must be a positive integer, got ${variationsPerParent}.`,
      );
    }
    if (mode !== 'off' && !options.generator) {
      throw new ConfigError(
        `curriculum mode "${mode}" needs a task generator: pass offlineMutators or an LlmTaskGenerator, or use mode "off".`,
      );
    }
    this.pool = options.pool;
    this.generator = options.generator;
    this.seedTasks = options.seedTasks;
  }

  /**
   * `count` distinct tasks for `iteration`, generated ones first. In `variance` mode nothing is
   * generated before some task's rollouts varied (the first iteration draws from the pool only),
   * and fewer than λ · count when the last iteration had fewer informative parents than needed.
   * Reads the pool afresh first: other processes sharing it may have added tasks.
   */
  async next(iteration: number, count: number): Promise<Task[]> {
    this.seeded ??= this.pool.add(this.seedTasks).catch((error: unknown) => {
      this.seeded = undefined;
      throw error;
    });
    await this.seeded;
    await this.pool.refresh();
    this.batchIteration = iteration;
    const { mode, realizableOnly, seed } = this.config;
    const filter: PoolFilter = realizableOnly
      ? { before: iteration, realizable: true }
      : { before: iteration };
    if (mode === 'off') {
      const seeds = this.pool.tasks({ ...filter, origin: 'seed' }).map((e) => e.task);
      return uniformSchedule(seeds, seed).next(iteration, count);
    }
    const rng = new Rng(seed).fork('curriculum', iteration);
    const pooled = this.pool.tasks(filter).map((e) => e.task);
    const slots = generatedSlots(mode, count, this.config.generatedShare);
    const generated = await this.variations(iteration, slots, pooled, rng.fork('generate'));
    return [
      ...generated,
      ...drawFromPool(pooled, count - generated.length, new Set(), rng.fork('draw')),
    ];
  }

  /** Files the rollouts of the batch last handed out under its iteration. */
  async record(episodes: Array<{ taskId: string; reward: number }>): Promise<void> {
    if (this.batchIteration === undefined) {
      throw new ConfigError(
        'curriculum.record() before next(): record the rollouts of a batch it handed out.',
      );
    }
    await this.pool.recordGroups(this.batchIteration, episodes);
  }

  /** Per iteration: pool size, generated tasks, informative share, mean reward variance V. */
  stats(): Promise<PoolIterationStats[]> {
    return this.pool.iterationStats();
  }

  /**
   * What it selected so far: seed and generated tasks played, their informative shares, the
   * template mix (by `templateOf`, see {@link curriculumReport}).
   */
  report(templateOf?: (task: Task) => string | undefined): Promise<CurriculumReport> {
    return curriculumReport(this.pool, {
      warnings: this.warnings.length,
      ...(templateOf && { templateOf }),
    });
  }

  /**
   * Up to `slots` new tasks, varied from the ranked parents in turn until enough are made or
   * `slots` parents were tried. An iteration that already made its variations (this batch was
   * asked for before) gets those again.
   */
  private async variations(
    iteration: number,
    slots: number,
    pooled: readonly Task[],
    rng: Rng,
  ): Promise<Task[]> {
    const made = this.pool.tasks().filter((e) => e.createdIteration === iteration);
    if (made.length > 0 || slots === 0) return made.slice(0, slots).map((e) => e.task);
    const generator = this.generator as TaskGenerator;
    const last = await this.pool.lastRecordedIteration(iteration);
    const lastRound = last === undefined ? [] : await this.pool.groups(last);
    const byId = new Map(pooled.map((t) => [t.id, t]));
    const ranking = rankParents(this.config.mode, lastRound, [...byId.keys()], rng.fork('parents'));
    const limit = Math.min(ranking.length, slots);
    const out: Task[] = [];
    for (let tried = 0; out.length < slots && tried < limit; ) {
      const wanted = slots - out.length;
      const parents = ranking.slice(
        tried,
        Math.min(limit, tried + Math.ceil(wanted / this.config.variationsPerParent)),
      );
      tried += parents.length;
      const results = await Promise.all(
        parents.map((id) =>
          generator.generate({
            parent: byId.get(id) as Task,
            count: Math.min(this.config.variationsPerParent, wanted),
            pool: this.pool,
            rng: rng.fork('vary', id),
          }),
        ),
      );
      for (const { tasks, warnings } of results) {
        for (const message of warnings) this.warnings.push({ iteration, message });
        for (const task of tasks) {
          if (out.length < slots && (!this.config.realizableOnly || isRealizable(task))) {
            out.push(...(await this.pool.add([task], iteration)));
          }
        }
      }
    }
    return out;
  }
}
