import type { Rng } from '../../core/rng.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type { EnvExpert } from '../env.ts';
import { KeysAndDoorsGame } from './game.ts';
import { generateLayout } from './layout.ts';
import { nextCommand } from './solver.ts';
import { keysAndDoorsSpec } from './tasks.ts';

/** A decision: the command and why. */
interface Decision {
  action: string;
  reasoning: string;
}

/**
 * A scripted player that knows the whole house (it rebuilds it from the task spec and replays
 * the episode's commands): each decision it takes the next command of the shortest sensible way
 * to the goal from the true state (see `nextCommand`), so it recovers from any detour.
 *
 * With probability ε a decision goes wrong instead, in one of the ways players err. Slips cost
 * steps: going the wrong way, looking around, opening or closing the wrong container, picking up
 * the wrong thing, putting the goal's thing down in the wrong place, reaching into a container
 * before opening it (refused). One is final: trying a key
 * it carries in a lock of another metal, which jams the door and ends the episode with reward 0.
 */
export class KeysAndDoorsExpert implements EnvExpert {
  readonly id: string;
  /** Chance of a mistake at each decision: 0 plays perfectly. */
  readonly epsilon: number;

  constructor(options: { epsilon?: number } = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`KeysAndDoorsExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `keys-and-doors-expert(eps=${this.epsilon})`;
  }

  async act(
    _observation: Observation,
    { task, history, rng }: { task: Task; history: readonly Step[]; rng: Rng },
  ): Promise<Decision> {
    const { layoutSeed, goal } = keysAndDoorsSpec(task);
    const game = new KeysAndDoorsGame(generateLayout(layoutSeed));
    for (const step of history) game.execute(step.action);
    const plan = nextCommand(game, goal);
    if (plan === undefined) return { action: 'look', reasoning: 'the goal is out of reach' };
    if (rng.chance(this.epsilon)) {
      const options = MISTAKES.map((kind) => kind(game, plan, goal.thing, rng)).filter(
        (d) => d !== undefined,
      );
      if (options.length > 0) return rng.pick(options);
    }
    return { action: plan, reasoning: `on the way to the goal: ${plan}` };
  }
}

type Mistake = (
  game: KeysAndDoorsGame,
  plan: string,
  thing: string,
  rng: Rng,
) => Decision | undefined;

/** Commands of the admissible list that start with `prefix`, other than the plan's. */
function others(game: KeysAndDoorsGame, plan: string, prefix: RegExp): string[] {
  return game.admissibleCommands().filter((c) => prefix.test(c) && c !== plan);
}

const MISTAKES: readonly Mistake[] = [
  (game, plan, _thing, rng) => {
    const ways = others(game, plan, /^go /);
    return ways.length > 0
      ? { action: rng.pick(ways), reasoning: 'went the wrong way (noise)' }
      : undefined;
  },
  (_game, _plan, _thing, rng) => ({
    action: rng.pick(['look', 'inventory']),
    reasoning: 'looked around instead of acting (noise)',
  }),
  (game, plan, _thing, rng) => {
    const fiddles = others(game, plan, /^(open|close) /);
    return fiddles.length > 0
      ? { action: rng.pick(fiddles), reasoning: 'opened or closed the wrong container (noise)' }
      : undefined;
  },
  (game, plan, _thing, rng) => {
    const takes = others(game, plan, /^take /);
    return takes.length > 0
      ? { action: rng.pick(takes), reasoning: 'picked up the wrong thing (noise)' }
      : undefined;
  },
  (game, plan, thing, rng) => {
    const puts = others(game, plan, new RegExp(`^(drop|put) ${thing}\\b`));
    return puts.length > 0
      ? { action: rng.pick(puts), reasoning: `put the ${thing} down in the wrong place (noise)` }
      : undefined;
  },
  (game, plan, thing, rng) => {
    const container = /^open (.+)$/.exec(plan)?.[1];
    if (!container) return undefined;
    const reach = [
      ...game.contents(container).map((item) => `take ${item}`),
      ...(game.held().includes(thing) ? [`put ${thing} in ${container}`] : []),
    ];
    return reach.length > 0
      ? { action: rng.pick(reach), reasoning: `forgot to open the ${container} first (noise)` }
      : undefined;
  },
  (game, _plan, _thing, rng) => {
    const wrongKeys = game.admissibleCommands().filter((c) => {
      const unlock = /^unlock (.+) with (.+)$/.exec(c);
      const door = game.exits().find((e) => e.link.door?.name === unlock?.[1])?.link.door;
      return unlock && door && game.metalOf(unlock[2] as string) !== door.lock;
    });
    return wrongKeys.length > 0
      ? { action: rng.pick(wrongKeys), reasoning: 'tried a key that does not fit (noise)' }
      : undefined;
  },
];
