import type { Rng } from '../../core/rng.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import {
  goalReached,
  type HouseholdGoal,
  isTreatedFor,
  objectsNeeded,
  parseInstruction,
  treatmentOf,
  writeInstruction,
} from '../../envs/household/goals.ts';
import { generateScene } from '../../envs/household/scene.ts';
import { solve } from '../../envs/household/solver.ts';
import { householdSpec } from '../../envs/household/tasks.ts';
import {
  APPLIANCES,
  canContain,
  hasAffordance,
  receptacleType,
} from '../../envs/household/vocabulary.ts';
import { HouseholdWorld, type ObjectState } from '../../envs/household/world.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';

/** The household expert's mistake rate. */
export interface HouseholdExpertOptions {
  /**
   * Chance of a mistake at each decision. 0 plays perfectly; 0.3 gives offline data with
   * successes and failures. See {@link HouseholdExpert} for the kinds of mistakes.
   */
  epsilon?: number;
}

/** Starts the reasoning of search steps: the next decision reads it to go on searching. */
const SEARCHING = 'searching';
/** The reasoning of a misreading, which later decisions read back as the expert's belief. */
const MISREAD = /^misread the task as: (.+) \(noise\)$/;

/**
 * A scripted household agent that knows the scene: it rebuilds the room from the task spec and
 * replays the episode's commands on it, so it always knows where everything is — an expert, for
 * collecting offline data, never a learned policy.
 *
 * Each decision it re-plans the shortest way to the goal from the true state (`solve`: go
 * where the object is, open, take, go to the appliance and treat, go to the target, open, move)
 * and takes the first step. With probability ε it errs instead, in one of the ways ALFWorld agents
 * do. Slips cost steps and re-planning recovers from them: going to the wrong place, looking
 * around instead of acting, taking the wrong object, skipping a step (taking from a closed
 * cabinet, placing an egg before heating it). Lapses last: forgetting where the object is (it
 * searches the room, receptacle by receptacle, until it sees one), and misreading the task at
 * the start (a wrong receptacle or object, or a dropped "two", "clean", "hot" or "cool"), which
 * it pursues and then believes done, checking on it until the steps run out, as stuck ALFWorld
 * agents do; reading the task is a decision like any other, so that happens with probability ε.
 * Failures are the episodes that run out of steps.
 *
 * Lapses are remembered the way an agent remembers: through its own reasoning in the history.
 */
export class HouseholdExpert implements Policy {
  readonly id: string;
  readonly epsilon: number;
  /** The world after an episode's commands, per history array, so each step replays one more. */
  private readonly worlds = new WeakMap<
    readonly Step[],
    { taskId: string; replayed: string[]; world: HouseholdWorld }
  >();

  constructor(options: HouseholdExpertOptions = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`HouseholdExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `household-expert(eps=${this.epsilon})`;
  }

  async act(
    _observation: Observation,
    { task, history, rng }: PolicyContext,
  ): Promise<PolicyAction> {
    const { goal } = householdSpec(task);
    const world = this.worldAfter(task, history);
    const belief = believedGoal(goal, history);
    if (history.at(-1)?.reasoning?.startsWith(SEARCHING)) {
      const step = searchStep(world, belief, history);
      if (step) return step;
    }
    const plan = solve(world, belief);
    if (plan === undefined) throw new Error(`household expert: no plan for ${task.id}; a bug.`);
    if (plan.length === 0) return checkStep(world, history);
    // Reading the task is a decision too: at the first step, it may go wrong.
    if (history.length === 0 && rng.chance(this.epsilon)) {
      const wrong = misread(world, goal, rng);
      if (wrong) return wrong;
    }
    if (rng.chance(this.epsilon)) {
      const slip = mistake({ world, belief, plan, history, rng });
      if (slip) return slip;
    }
    return { action: plan[0] as string, reasoning: explain(plan, belief) };
  }

  /** The true world after the episode's commands so far. */
  private worldAfter(task: Task, history: readonly Step[]): HouseholdWorld {
    let entry = this.worlds.get(history);
    if (
      !entry ||
      entry.taskId !== task.id ||
      entry.replayed.length > history.length ||
      entry.replayed.some((action, i) => history[i]?.action !== action)
    ) {
      const world = HouseholdWorld.fromScene(generateScene(householdSpec(task).scene));
      entry = { taskId: task.id, replayed: [], world };
      this.worlds.set(history, entry);
    }
    for (const step of history.slice(entry.replayed.length)) {
      entry.world.execute(step.action);
      entry.replayed.push(step.action);
    }
    return entry.world;
  }
}

/** The goal as the expert understands it: the task's, unless it misread it earlier. */
function believedGoal(goal: HouseholdGoal, history: readonly Step[]): HouseholdGoal {
  for (let i = history.length - 1; i >= 0; i--) {
    const misread = MISREAD.exec(history[i]?.reasoning ?? '');
    if (misread) return parseInstruction(misread[1] as string) ?? goal;
  }
  return goal;
}

/** A short thought for the plan's next command, e.g. `go to fridge 1, to cool it`. */
function explain(plan: readonly string[], goal: HouseholdGoal): string {
  const [next = '', after = ''] = plan;
  if (!next.startsWith('go to ')) {
    const left = plan.length - 1;
    return `${next}: ${left === 0 ? 'the last step' : `${left} more step${left === 1 ? '' : 's'} to go`}`;
  }
  const purpose: Record<string, string> = {
    take: `where a ${goal.object} is`,
    open: 'to open it and get what is inside',
    heat: 'to heat it',
    cool: 'to cool it',
    clean: 'to clean it',
    use: 'to switch on the lamp',
    move: 'to put it there',
  };
  return `${next}, ${purpose[after.split(' ')[0] ?? ''] ?? 'where the lamp is'}`;
}

/** After a misread task looks done: checking on it, as agents do, while the steps run out. */
function checkStep(world: HouseholdWorld, history: readonly Step[]): PolicyAction {
  const checks = ['look', 'inventory'];
  if (world.location) checks.push(`examine ${world.location}`);
  return {
    action: checks[history.length % checks.length] as string,
    reasoning: 'the task looks done to me, yet it goes on; checking (I misread the task)',
  };
}

interface MistakeContext {
  world: HouseholdWorld;
  /** The goal the expert pursues: the task's, or its misreading. */
  belief: HouseholdGoal;
  plan: readonly string[];
  history: readonly Step[];
  rng: Rng;
}

/** One of the slips and lapses that fit the moment, each kind equally likely. */
function mistake(context: MistakeContext): PolicyAction | undefined {
  const kinds = [wrongPlace, idle, wrongObject, skippedStep, forgotWhere];
  const options = kinds.map((kind) => kind(context)).filter((o) => o !== undefined);
  return options.length > 0 ? context.rng.pick(options) : undefined;
}

function wrongPlace({ world, plan, rng }: MistakeContext): PolicyAction | undefined {
  const elsewhere = world.scene.receptacles.filter(
    (r) => r.name !== world.location && `go to ${r.name}` !== plan[0],
  );
  if (elsewhere.length === 0) return undefined;
  return {
    action: `go to ${rng.pick(elsewhere).name}`,
    reasoning: 'went to the wrong place (noise)',
  };
}

function idle({ world, rng }: MistakeContext): PolicyAction {
  const pastimes = ['look', 'inventory'];
  if (world.location) pastimes.push(`examine ${world.location}`);
  if (world.holding) pastimes.push(`examine ${world.holding.name}`);
  return { action: rng.pick(pastimes), reasoning: 'looked around instead of acting (noise)' };
}

function wrongObject({ world, belief, plan, rng }: MistakeContext): PolicyAction | undefined {
  const taking = /^take (.+) from (.+)$/.exec(plan[0] ?? '');
  if (!taking) return undefined;
  const [, wanted, from] = taking as unknown as [string, string, string];
  // The plan takes from here, so the hand is free and the receptacle open.
  const others = world
    .contents(from)
    .filter(
      (o) => o.name !== wanted && o.type !== belief.object && hasAffordance(o.type, 'pickup'),
    );
  if (others.length === 0) return undefined;
  return {
    action: `take ${rng.pick(others).name} from ${from}`,
    reasoning: 'took the wrong object (noise)',
  };
}

function skippedStep({ plan }: MistakeContext): PolicyAction | undefined {
  const [next = '', after] = plan;
  if (after === undefined || !/^(go to|open|heat|cool|clean|use) /.test(next)) return undefined;
  return { action: after, reasoning: `forgot to ${next} first (noise)` };
}

function forgotWhere({ world, belief, plan, history }: MistakeContext): PolicyAction | undefined {
  if (world.holding || !plan[0]?.startsWith('go to ')) return undefined;
  return searchStep(world, belief, history);
}

/**
 * A step of searching the room for the believed goal's object, receptacle by receptacle in the
 * order an agent would guess (where such things usually lie first), opening closed ones on the
 * way, until one is in sight; then it takes it and the search is over. Undefined when every place
 * was tried or the hand is full.
 */
function searchStep(
  world: HouseholdWorld,
  belief: HouseholdGoal,
  history: readonly Step[],
): PolicyAction | undefined {
  const here = world.location;
  const wanted = belief.object;
  if (world.holding) return undefined;
  const placed = (o: ObjectState) =>
    'receptacle' in belief &&
    world.receptacle(o.receptacle ?? '')?.type === belief.receptacle &&
    isTreatedFor(belief, o);
  const found = world.visible().find((o) => o.type === wanted && !o.onFloor && !placed(o));
  if (found && here) {
    return { action: `take ${found.name} from ${here}`, reasoning: `found a ${wanted}; take it` };
  }
  const note = `${SEARCHING} for a ${wanted}: I forgot where it is (noise)`;
  if (here && !world.isAccessible(here) && canContain(world.receptacle(here)?.type ?? '', wanted)) {
    return { action: `open ${here}`, reasoning: note };
  }
  const visited = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i] as Step;
    if (!step.reasoning?.startsWith(SEARCHING)) break;
    if (step.action.startsWith('go to ')) visited.add(step.action.slice('go to '.length));
  }
  const next = world.scene.receptacles
    .filter((r) => canContain(r.type, wanted) && r.name !== here && !visited.has(r.name))
    .sort(
      (a, b) => receptacleType(b.type).placementWeight - receptacleType(a.type).placementWeight,
    )[0];
  return next ? { action: `go to ${next.name}`, reasoning: note } : undefined;
}

/** A misreading of the task, pursued from the first step on: that plan's first command. */
function misread(world: HouseholdWorld, goal: HouseholdGoal, rng: Rng): PolicyAction | undefined {
  const groups = misreadings(world, goal).filter((group) => group.length > 0);
  if (groups.length === 0) return undefined;
  const wrong = rng.pick(rng.pick(groups));
  const plan = solve(world, wrong);
  if (!plan?.[0]) return undefined;
  return {
    action: plan[0],
    reasoning: `misread the task as: ${writeInstruction(wrong, rng)} (noise)`,
  };
}

/**
 * Plausible misreadings of `goal` in this room, by kind: a dropped "two", "clean", "hot" or
 * "cool"; another receptacle type; another object type; another lamp. Ones already true now
 * are left out (they would look done before any step).
 */
function misreadings(world: HouseholdWorld, goal: HouseholdGoal): HouseholdGoal[][] {
  const counts = new Map<string, number>();
  for (const o of world.allObjects()) counts.set(o.type, (counts.get(o.type) ?? 0) + 1);
  const others = (kind: 'pickup' | 'light', except: string) =>
    [...counts.keys()].filter((t) => t !== except && hasAffordance(t, kind));
  const open = (goals: HouseholdGoal[]) => goals.filter((g) => !goalReached(world, g));

  if (goal.type === 'look_at_obj_in_light') {
    return [
      open(others('light', goal.light).map((light) => ({ ...goal, light }))),
      open(others('pickup', goal.object).map((object) => ({ ...goal, object }))),
    ];
  }
  const treatment = treatmentOf(goal.type);
  const appliance = treatment && APPLIANCES[treatment];
  const receptacles = [...new Set(world.scene.receptacles.map((r) => r.type))].filter(
    (r) => r !== goal.receptacle && r !== appliance && canContain(r, goal.object),
  );
  const objects = others('pickup', goal.object).filter(
    (o) =>
      canContain(goal.receptacle, o) &&
      (!treatment || hasAffordance(o, treatment)) &&
      (counts.get(o) ?? 0) >= objectsNeeded(goal),
  );
  return [
    open(goal.type === 'pick_and_place' ? [] : [{ ...goal, type: 'pick_and_place' }]),
    open(receptacles.map((receptacle) => ({ ...goal, receptacle }))),
    open(objects.map((object) => ({ ...goal, object }))),
  ];
}
