/**
 * A user's env module as tests load it (`--env ./lamps-module.ts`): a tiny env nobody modelled by
 * hand — switch on the asked lamp, then finish — with its tasks and a scripted expert, exported as
 * an `EnvEntry` (default), plus named variants for the loader's cases.
 */
import { EnvClosedError, EnvNotResetError, EpisodeEndedError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Observation, Task } from '../../core/types.ts';
import type {
  Env,
  EnvEntry,
  EnvExpert,
  ResetOptions,
  ResetResult,
  StepResult,
  TaskSource,
} from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';

const LAMPS = ['desk', 'porch', 'hall', 'attic'];

function lampTask(split: 'train' | 'test', i: number): Task {
  const target = LAMPS[(i * 7 + (split === 'test' ? 1 : 0)) % LAMPS.length] as string;
  return {
    id: `lamps-${split}-${i}`,
    env: 'lamps',
    instruction: i % 2 ? `Switch on the ${target} lamp, then finish.` : `Light the ${target} lamp.`,
    spec: { target },
    origin: 'seed',
  };
}

/** Four lamps, all off; `switch_on[NAME]` lights one, `finish` ends: reward 1 if only the asked one is on. */
class LampsEnv implements Env {
  private task: Task | undefined;
  private on = new Set<string>();
  private ended = false;
  private closed = false;

  constructor(readonly name = 'lamps') {}

  async reset({ task, seed = 0 }: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    this.task = task ?? { ...lampTask('train', new Rng(seed).int(100)), env: this.name };
    this.on = new Set();
    this.ended = false;
    return { observation: this.observe(), info: { task: this.task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (!this.task) throw new EnvNotResetError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, 'terminated');
    const lamp = /^switch_on\[(\w+)\]$/.exec(action)?.[1];
    if (action === 'finish') {
      this.ended = true;
      const target = this.task.spec?.target as string;
      const success = this.on.size === 1 && this.on.has(target);
      return {
        observation: this.observe(),
        reward: success ? 1 : 0,
        terminated: true,
        truncated: false,
        info: {},
      };
    }
    if (lamp === undefined || !LAMPS.includes(lamp) || this.on.has(lamp)) {
      return {
        observation: this.observe(),
        reward: 0,
        terminated: false,
        truncated: false,
        info: { invalidAction: `"${action}" is not one of ${this.actions().join(', ')}` },
      };
    }
    this.on.add(lamp);
    return {
      observation: this.observe(),
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private actions(): string[] {
    return [...LAMPS.filter((l) => !this.on.has(l)).map((l) => `switch_on[${l}]`), 'finish'];
  }

  private observe(): Observation {
    const state = Object.fromEntries(LAMPS.map((l) => [l, this.on.has(l) ? 'on' : 'off']));
    return {
      text: JSON.stringify({ lamps: state }),
      instruction: this.task?.instruction ?? '',
      actions: this.actions(),
    };
  }
}

/** Lights the asked lamp, then finishes; with probability ε a random admissible action instead. */
class LampsExpert implements EnvExpert {
  readonly id: string;
  constructor(private readonly epsilon: number) {
    this.id = `lamps-expert(eps=${epsilon})`;
  }
  async act(
    observation: Observation,
    { task, rng }: { task: Task; rng: Rng },
  ): Promise<{ action: string }> {
    const actions = observation.actions ?? [];
    if (rng.chance(this.epsilon)) return { action: rng.pick(actions) };
    const wanted = `switch_on[${task.spec?.target as string}]`;
    return { action: actions.includes(wanted) ? wanted : 'finish' };
  }
}

const tasks: TaskSource = {
  tasks: (split, count = 200) => Array.from({ length: count }, (_, i) => lampTask(split, i)),
};

const lamps: EnvEntry = {
  name: 'lamps',
  description: 'switch on the asked lamp, then finish (a test module)',
  maxSteps: 6,
  make: (o) => new TimeLimit(new LampsEnv(), o.maxSteps ?? 6),
  tasks: () => tasks,
  expert: ({ epsilon }) => new LampsExpert(epsilon),
};
export default lamps;

/** The same env without an expert, under another name. */
export const bareLamps: EnvEntry = {
  name: 'lamps-bare',
  description: 'lamps without a scripted expert (a test module)',
  maxSteps: 6,
  make: (o) => new TimeLimit(new LampsEnv('lamps-bare'), o.maxSteps ?? 6),
  tasks: () => ({
    tasks: (split, count) => tasks.tasks(split, count).map((t) => ({ ...t, env: 'lamps-bare' })),
  }),
};

/** An entry without a name: the loader reads it from a made env (`lamps`). */
export const unnamedLamps: EnvEntry = {
  description: 'lamps, unnamed (a test module)',
  maxSteps: 6,
  make: () => new LampsEnv(),
  tasks: () => tasks,
};

/** Not an entry: no tasks. */
export const notAnEntry = { description: 'broken', maxSteps: 6, make: () => new LampsEnv() };
