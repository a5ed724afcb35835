import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSource, TaskSplit } from '../env.ts';

/** The AgentGym servers this client speaks to. */
export const AGENTGYM_ENVS = ['webshop', 'alfworld'] as const;
export type AgentGymEnvName = (typeof AGENTGYM_ENVS)[number];

/** Env family of a remote env, e.g. `agentgym:webshop`: apart from our own `webshop`. */
export function agentgymFamily(name: AgentGymEnvName): string {
  return `agentgym:${name}`;
}

/** Task indices `start` (inclusive) to `end` (exclusive). */
export interface IndexRange {
  start: number;
  end: number;
}

/**
 * Task index ranges per split, as AgentGym's servers number their tasks.
 *
 * - alfworld: the server lists the games of `configs/mappings_train.json` (item ids 0–2419,
 *   ALFWorld's train set) and then `configs/mappings_test.json` (2420–2619); `reset({ game })`
 *   indexes that list.
 * - webshop: `reset({ session_id })` indexes WebShop's goal list (shuffled with a fixed seed).
 *   AgentGym's evaluation tutorial runs `idxs=list(range(200))`, so test is 0–199; train is
 *   200–6909, 6909 being the largest id in AgentGym-RL's `webshop_train.json`. AgentGym publishes
 *   its exact id lists as data (AgentEval, AgentTraj); pass other ranges to match one of them.
 */
export const AGENTGYM_SPLITS: Record<AgentGymEnvName, Record<TaskSplit, IndexRange>> = {
  webshop: { test: { start: 0, end: 200 }, train: { start: 200, end: 6910 } },
  alfworld: { train: { start: 0, end: 2420 }, test: { start: 2420, end: 2620 } },
};

/**
 * The task with server index `index`. Its instruction is known only once the server has reset to
 * it, so it may be empty here; `reset` returns the task with the server's instruction filled in.
 */
export function agentgymTask(name: AgentGymEnvName, index: number, instruction = ''): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`AgentGym task index must be a whole number ≥ 0, got ${index}.`);
  }
  const env = agentgymFamily(name);
  return { id: `${env}/${index}`, env, instruction, spec: { index }, origin: 'seed' };
}

/** The server index of a task, or a {@link TaskError} saying why this env cannot run it. */
export function agentgymTaskIndex(task: Task, name: AgentGymEnvName): number {
  const env = agentgymFamily(name);
  if (task.env !== env) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${env}".`);
  }
  const index = task.spec?.index;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
    throw new TaskError(
      `task ${task.id} has no server index (spec.index); a generated task without one can only run in a synthetic env.`,
    );
  }
  return index;
}

/** The seeded task splits of one AgentGym server: tasks by index range, and draws by seed. */
export class AgentGymTaskSource implements TaskSource {
  readonly splits: Record<TaskSplit, IndexRange>;

  constructor(
    readonly name: AgentGymEnvName,
    splits: Partial<Record<TaskSplit, IndexRange>> = {},
  ) {
    this.splits = { ...AGENTGYM_SPLITS[name], ...splits };
    for (const [split, range] of Object.entries(this.splits)) {
      if (!Number.isInteger(range.start) || !(range.end > range.start) || range.start < 0) {
        throw new ConfigError(
          `AgentGym ${name} ${split} split: need whole numbers 0 ≤ start < end, got ${range.start}–${range.end}.`,
        );
      }
    }
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    const { start, end } = this.splits[split];
    const size = end - start;
    const wanted = count ?? size;
    if (wanted > size) {
      throw new ConfigError(
        `the AgentGym ${this.name} ${split} split has ${size} tasks (indices ${start}–${end - 1}); asked for ${wanted}.`,
      );
    }
    return Array.from({ length: wanted }, (_, k) => agentgymTask(this.name, start + k));
  }

  /** The task `reset({ seed })` runs: uniform over the split, fixed by the seed. */
  draw(split: TaskSplit, seed: number): Task {
    const { start, end } = this.splits[split];
    return agentgymTask(this.name, start + new Rng(seed).fork('agentgym-task').int(end - start));
  }
}
