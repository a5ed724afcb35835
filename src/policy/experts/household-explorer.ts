import type { Observation, Step } from '../../core/types.ts';
import {
  type Goal,
  parseCommand,
  parseFeedback,
  parseGoal,
  requiredState,
  typeOf,
} from '../../envs/formats/alfworld-grammar.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';

/** The household explorer's mistake rate. */
export interface HouseholdExplorerOptions {
  /** Chance of a random admissible command instead of the planned one. Default 0. */
  epsilon?: number;
}

/** Where ALFWorld's appliances treat a held object, and the command (public task semantics). */
const TREATMENT: Record<string, { appliance: string; verb: string }> = {
  hot: { appliance: 'microwave', verb: 'heat' },
  cold: { appliance: 'fridge', verb: 'cool' },
  clean: { appliance: 'sinkbasin', verb: 'clean' },
};

/** What the agent has seen and done this episode, read back from its history. */
interface Belief {
  location?: string;
  holding?: string;
  /** Objects already put where the goal wants them. */
  placed: Set<string>;
  /** Objects treated (heated, cooled, cleaned) by the agent. */
  treated: Set<string>;
  /** Receptacles gone to (or opened) and searched. */
  searched: Set<string>;
  /** Objects seen and not taken since, with where. */
  seen: Map<string, string>;
}

/**
 * A scripted household agent that sees only what any agent sees: the instruction, the feedback
 * text and the admissible commands. It reads the goal from the instruction (ALFWorld's public task
 * templates), searches receptacles in the order the room lists them, opening closed ones, takes
 * the first object of the wanted type, treats it at the matching appliance (microwave, fridge,
 * sink basin), and puts it in the first receptacle of the target type; for "look at … under the
 * lamp" it carries the object until a lamp is at hand. Unlike {@link HouseholdExpert} it never
 * reads the scene, so it can act in a synthetic household env as well as the real one — the policy
 * for free-running fidelity.
 */
export class HouseholdExplorer implements Policy {
  readonly id: string;
  private readonly epsilon: number;

  constructor(options: HouseholdExplorerOptions = {}) {
    this.epsilon = options.epsilon ?? 0;
    this.id = `household-explorer(eps=${this.epsilon})`;
  }

  async act(observation: Observation, context: PolicyContext): Promise<PolicyAction> {
    const actions = observation.actions ?? [];
    if (this.epsilon > 0 && actions.length > 0 && context.rng.chance(this.epsilon)) {
      return { action: context.rng.pick(actions), reasoning: 'explore at random (noise)' };
    }
    const goal = parseGoal(observation.instruction);
    const belief = believe(context.history);
    const [action, reasoning] = (goal && plan(goal, belief, actions)) ?? [
      actions.includes('look') ? 'look' : (actions[0] ?? 'look'),
      goal ? 'nothing left to try' : 'the instruction matches no task template',
    ];
    return { action, reasoning };
  }
}

function believe(history: readonly Step[]): Belief {
  const belief: Belief = {
    placed: new Set(),
    treated: new Set(),
    searched: new Set(),
    seen: new Map(),
  };
  const saw = (at: string, contents: readonly string[]) => {
    belief.searched.add(at);
    for (const o of contents) belief.seen.set(o, at);
  };
  for (const step of history) {
    const f = parseFeedback(step.observation.text);
    switch (f.kind) {
      case 'arrive':
        belief.location = f.at;
        if (!f.closed) saw(f.at, f.contents ?? []);
        break;
      case 'open':
        saw(f.at, f.contents);
        break;
      case 'take':
        belief.holding = f.object;
        belief.seen.delete(f.object);
        break;
      case 'move':
        belief.placed.add(f.object);
        belief.holding = undefined;
        break;
      case 'transform':
        belief.treated.add(f.object);
        break;
      default:
        break;
    }
  }
  return belief;
}

/** The next command towards the goal, with why; undefined when nothing sensible is admissible. */
function plan(
  goal: Goal,
  belief: Belief,
  actions: readonly string[],
): [string, string] | undefined {
  const held = belief.holding;
  const here = belief.location;
  if (held !== undefined && typeOf(held) === goal.object) {
    if (goal.type === 'look_at_obj_in_light') {
      const lamp = actions.find((a) => a.startsWith(`use ${goal.light} `));
      if (lamp) return [lamp, `holding the ${held}, turn on the ${goal.light} here`];
      const seenAt = seenOfType(belief, goal.light as string);
      if (seenAt && seenAt !== here && actions.includes(`go to ${seenAt}`))
        return [`go to ${seenAt}`, `bring the ${held} to the ${goal.light} seen at ${seenAt}`];
      return search(belief, actions, `carry the ${held} until a ${goal.light} is at hand`);
    }
    const state = requiredState(goal);
    const treatment = state === undefined ? undefined : TREATMENT[state];
    if (treatment && !belief.treated.has(held)) {
      const treat = actions.find((a) => a.startsWith(`${treatment.verb} ${held} with `));
      if (treat) return [treat, `make the ${held} ${state}`];
      return goTo(treatment.appliance, belief, actions, `take the ${held} to be made ${state}`);
    }
    const target = goal.receptacle as string;
    if (here !== undefined && typeOf(here) === target) {
      if (actions.includes(`move ${held} to ${here}`))
        return [`move ${held} to ${here}`, `put the ${held} in the ${here}`];
    }
    return goTo(target, belief, actions, `bring the ${held} to a ${target}`);
  }
  if (held !== undefined) return undefined; // holding something else: nothing planned for it
  // Find one: a wanted object in sight (not one already in place), else one seen, else search.
  const take = actions.find((a) => {
    const c = parseCommand(a);
    return c?.verb === 'take' && typeOf(c.object) === goal.object && !belief.placed.has(c.object);
  });
  if (take) return [take, `a ${goal.object} is here: take it`];
  const seenAt = seenOfType(belief, goal.object, belief.placed);
  if (seenAt && seenAt !== here && actions.includes(`go to ${seenAt}`))
    return [`go to ${seenAt}`, `a ${goal.object} was seen at ${seenAt}`];
  return search(belief, actions, `look for a ${goal.object}`);
}

/** Where an object of `type` was seen (not taken since, not in `except`), if anywhere. */
function seenOfType(
  belief: Belief,
  type: string,
  except: ReadonlySet<string> = new Set(),
): string | undefined {
  for (const [object, at] of belief.seen)
    if (typeOf(object) === type && !except.has(object)) return at;
  return undefined;
}

/** Opens the closed receptacle here, else goes to the next one not searched yet. */
function search(
  belief: Belief,
  actions: readonly string[],
  why: string,
): [string, string] | undefined {
  const here = belief.location;
  if (here && !belief.searched.has(here) && actions.includes(`open ${here}`))
    return [`open ${here}`, `${why}: open the ${here}`];
  const next = actions.find((a) => {
    const c = parseCommand(a);
    return c?.verb === 'go' && !belief.searched.has(c.target);
  });
  return next ? [next, `${why}: search ${next.slice('go to '.length)}`] : undefined;
}

/** Goes to the first receptacle of a type; already at one, opens it if it is closed. */
function goTo(
  type: string,
  belief: Belief,
  actions: readonly string[],
  why: string,
): [string, string] | undefined {
  const here = belief.location;
  if (here !== undefined && typeOf(here) === type && actions.includes(`open ${here}`))
    return [`open ${here}`, `${why}: open the ${here}`];
  const go = actions.find((a) => {
    const c = parseCommand(a);
    return c?.verb === 'go' && typeOf(c.target) === type;
  });
  return go ? [go, why] : search(belief, actions, why);
}
