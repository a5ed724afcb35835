import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSource, TaskSplit } from '../env.ts';

/**
 * The AgentGym servers this client knows by name (AgentGym's `agentenv-*` packages; `maze` and
 * `wordle` are the two envs of `agentenv-lmrlgym`). Any other server that speaks AgentGym's
 * common protocol runs as `agentgym:generic:NAME@URL`.
 */
export const AGENTGYM_ENVS = [
  'webshop',
  'alfworld',
  'textcraft',
  'babyai',
  'sciworld',
  'sqlgym',
  'maze',
  'wordle',
  'weather',
  'movie',
  'todo',
  'academia',
  'sheet',
  'searchqa',
] as const;
/** A server this client knows by name. */
export type AgentGymEnvName = (typeof AGENTGYM_ENVS)[number];

/** True for the names of {@link AGENTGYM_ENVS}. */
export function isAgentGymEnvName(name: string): name is AgentGymEnvName {
  return (AGENTGYM_ENVS as readonly string[]).includes(name);
}

/** Env family of a remote env, e.g. `agentgym:webshop`: apart from our own `webshop`. */
export function agentgymFamily(name: string): string {
  return `agentgym:${name}`;
}

/** Task indices `start` (inclusive) to `end` (exclusive). */
export interface IndexRange {
  start: number;
  end: number;
}

/** The first `test` indices for testing and the `train` after them. */
function testFirst(test: number, train: number): Record<TaskSplit, IndexRange> {
  return { test: { start: 0, end: test }, train: { start: test, end: test + train } };
}

/** One set of tasks for both splits, for servers with too few tasks to split. */
function unsplit(count: number): Record<TaskSplit, IndexRange> {
  return { test: { start: 0, end: count }, train: { start: 0, end: count } };
}

/**
 * Task index ranges per split, as AgentGym's servers number their tasks.
 *
 * Ranges AgentGym publishes:
 * - alfworld: the server lists the games of `configs/mappings_train.json` (item ids 0–2419,
 *   ALFWorld's train set) and then `configs/mappings_test.json` (2420–2619); `reset({ game })`
 *   indexes that list.
 * - webshop: `reset({ session_id })` indexes WebShop's goal list (shuffled with a fixed seed).
 *   AgentGym's evaluation tutorial runs `idxs=list(range(200))`, so test is 0–199; train is
 *   200–6909, 6909 being the largest id in AgentGym-RL's `webshop_train.json`.
 * - sqlgym: its README's item ids, BIRD's train set 0–9427 and its dev set 9428–10961 (test).
 * - searchqa: its README's item ids, test 0–51712 (seven QA sets) and train 51713–221327.
 *
 * Elsewhere AgentGym publishes its splits only as id lists (AgentEval, AgentTraj-L on Hugging
 * Face), not as ranges. There we take test = the first N indices, N = AgentEval's count, and
 * train = the indices after them, as many as AgentTraj-L has trajectories or as the server has
 * tasks left; these do not pick AgentEval's exact items, so pass other ranges (`splits`) to
 * match a list:
 * - textcraft: test 0–99, train 100–473 (AgentEval 100, AgentTraj-L 374; any index is a goal).
 * - babyai: test 0–89, train 90–899 (90, 810; index i is level i mod 40 with seed i div 40).
 * - sciworld: test 0–199, train 200–2319 (200, 2120; an index is a task variation).
 * - wordle: test 0–24, train 25–979 (25, 955; the index seeds the hidden word).
 * - weather (tasks 0–342), movie (0–237), todo (0–154): test 0–19 (AgentEval's 20), train the
 *   rest of the server's data file.
 * - academia, sheet: 20 tasks (0–19), evaluation only (AgentGym has no trajectories for them):
 *   both splits are those 20.
 * - maze: LMRL-Gym's maze has 26 start positions (0–25), too few to split: both splits are
 *   those 26.
 */
export const AGENTGYM_SPLITS: Record<AgentGymEnvName, Record<TaskSplit, IndexRange>> = {
  webshop: { test: { start: 0, end: 200 }, train: { start: 200, end: 6910 } },
  alfworld: { train: { start: 0, end: 2420 }, test: { start: 2420, end: 2620 } },
  sqlgym: { train: { start: 0, end: 9428 }, test: { start: 9428, end: 10962 } },
  searchqa: { test: { start: 0, end: 51713 }, train: { start: 51713, end: 221328 } },
  textcraft: testFirst(100, 374),
  babyai: testFirst(90, 810),
  sciworld: testFirst(200, 2120),
  wordle: testFirst(25, 955),
  weather: testFirst(20, 323),
  movie: testFirst(20, 218),
  todo: testFirst(20, 135),
  academia: unsplit(20),
  sheet: unsplit(20),
  maze: unsplit(26),
};

/**
 * Splits of a server run with the generic protocol: nothing is known of its tasks, so test is
 * indices 0–99 and train 100–999; pass `splits` to match the server's data.
 */
export const GENERIC_SPLITS: Record<TaskSplit, IndexRange> = testFirst(100, 900);

/**
 * The task with server index `index`. Its instruction is known only once the server has reset to
 * it, so it may be empty here; `reset` returns the task with the server's instruction filled in.
 */
export function agentgymTask(name: string, index: number, instruction = ''): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`AgentGym task index must be a whole number ≥ 0, got ${index}.`);
  }
  const env = agentgymFamily(name);
  return { id: `${env}/${index}`, env, instruction, spec: { index }, origin: 'seed' };
}

/** The server index of a task, or a {@link TaskError} saying why this env cannot run it. */
export function agentgymTaskIndex(task: Task, name: string): number {
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

/**
 * The seeded task splits of one AgentGym server: tasks by index range, and draws by seed.
 * Ranges default to {@link AGENTGYM_SPLITS} for a known server, else {@link GENERIC_SPLITS}.
 */
export class AgentGymTaskSource implements TaskSource {
  readonly splits: Record<TaskSplit, IndexRange>;

  constructor(
    readonly name: string,
    splits: Partial<Record<TaskSplit, IndexRange>> = {},
  ) {
    const known = isAgentGymEnvName(name) ? AGENTGYM_SPLITS[name] : GENERIC_SPLITS;
    this.splits = { ...known, ...splits };
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
