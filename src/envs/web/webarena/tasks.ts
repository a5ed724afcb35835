import { ConfigError, TaskError } from '../../../core/errors.ts';
import { hashString, Rng } from '../../../core/rng.ts';
import type { Task } from '../../../core/types.ts';
import type { TaskSource, TaskSplit } from '../../env.ts';
import { type WebArenaConfig, WebArenaConfigSchema } from './config.ts';

/**
 * How WebArena tasks divide into train and test. WebArena (and WebArena-Lite) is a test set with
 * no train split, so by default every task is in both (`none`): evaluating on tasks one trained on
 * is then the user's explicit choice. `template` holds out whole intent templates (tasks from one
 * template differ only in their slots, so splitting tasks would leak the template into test):
 * a template is in test when the hash of its `intent_template_id` falls under `testFraction`.
 */
export const WEBARENA_SPLIT_RULES = ['none', 'template'] as const;
export type WebArenaSplitRule = (typeof WEBARENA_SPLIT_RULES)[number];

export interface WebArenaTaskSourceOptions {
  /** The env name the tasks belong to (`Task.env`), e.g. `webarena@configs/lite.json`. */
  env: string;
  /** Default `none`: every task in both splits. */
  splitBy?: WebArenaSplitRule;
  /** Under `template`: the share of templates held out for test, in (0, 1). Default 0.2. */
  testFraction?: number;
}

/** The dreamgym task of a WebArena config: id `webarena:<task_id>`, the intent as instruction. */
export function webarenaTask(config: WebArenaConfig, env: string): Task {
  return {
    id: `webarena:${config.task_id}`,
    env,
    instruction: config.intent,
    spec: config as unknown as Record<string, unknown>,
    origin: 'seed',
  };
}

/**
 * The WebArena config a task carries in its `spec`, validated; a {@link TaskError} when the task is
 * for another env or has no usable config (a generated task runs only in a synthetic env).
 */
export function webarenaTaskConfig(task: Task, env?: string): WebArenaConfig {
  if (env !== undefined && task.env !== env) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${env}".`);
  }
  if (!task.spec) {
    throw new TaskError(
      `task ${task.id} has no WebArena config (spec); a generated task without one can only run in a synthetic env.`,
    );
  }
  const parsed = WebArenaConfigSchema.safeParse(task.spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(the spec)';
    throw new TaskError(
      `task ${task.id}: its spec is not a WebArena config (field ${field}: ${issue?.message}); give the task a config in WebArena's format.`,
    );
  }
  return parsed.data;
}

/** The tasks of a set of WebArena configs, in file order, divided by a {@link WebArenaSplitRule}. */
export class WebArenaTaskSource implements TaskSource {
  private readonly bySplit: Record<TaskSplit, Task[]>;

  constructor(
    configs: readonly WebArenaConfig[],
    readonly options: WebArenaTaskSourceOptions,
  ) {
    const rule = options.splitBy ?? 'none';
    if (!(WEBARENA_SPLIT_RULES as readonly string[]).includes(rule)) {
      throw new ConfigError(
        `unknown WebArena split rule "${rule}"; choose one of ${WEBARENA_SPLIT_RULES.join(', ')}.`,
      );
    }
    const fraction = options.testFraction ?? 0.2;
    if (!(fraction > 0 && fraction < 1)) {
      throw new ConfigError(`testFraction must be between 0 and 1 (exclusive), got ${fraction}.`);
    }
    const tasks = configs.map((config) => webarenaTask(config, options.env));
    if (rule === 'none') {
      this.bySplit = { train: tasks, test: tasks };
    } else {
      const inTest = (config: WebArenaConfig) =>
        hashString(`template:${config.intent_template_id ?? config.task_id}`) / 2 ** 32 < fraction;
      this.bySplit = {
        train: tasks.filter((_, i) => !inTest(configs[i] as WebArenaConfig)),
        test: tasks.filter((_, i) => inTest(configs[i] as WebArenaConfig)),
      };
    }
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    const all = this.bySplit[split];
    const wanted = count ?? all.length;
    if (!Number.isInteger(wanted) || wanted < 0 || wanted > all.length) {
      throw new ConfigError(
        `the WebArena ${split} split has ${all.length} tasks (split by ${this.options.splitBy ?? 'none'}); asked for ${wanted}.`,
      );
    }
    return all.slice(0, wanted);
  }

  /** The task `reset({ seed })` runs: uniform over the split, fixed by the seed. */
  draw(split: TaskSplit, seed: number): Task {
    const all = this.bySplit[split];
    if (all.length === 0) {
      throw new ConfigError(
        `the WebArena ${split} split is empty; use splitBy 'none' or a larger testFraction.`,
      );
    }
    return all[new Rng(seed).fork('webarena-task').int(all.length)] as Task;
  }
}
