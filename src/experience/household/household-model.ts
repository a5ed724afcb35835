import { memoize } from '../../core/memo.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import {
  admissibleCommands,
  type Command,
  type Goal,
  parseCommand as parseCommandText,
  parseFeedback as parseFeedbackText,
  parseGoal,
  render,
  renderStart,
  requiredState,
  STATE_WORD,
  typeOf,
} from '../../envs/formats/alfworld-grammar.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from '../experience-model.ts';
import type { HouseholdKnowledge } from './knowledge.ts';

// Each prediction re-reads the whole episode, so the same commands and feedback are parsed again
// and again: remember the parses (the grammar's parsers are pure; nothing here mutates a parse).
const parseCommand = memoize(parseCommandText);
const parseFeedback = memoize(parseFeedbackText);

/** What the episode so far has shown: the model's episode memory. */
interface Memory {
  receptacles: Set<string>;
  location?: string;
  /** Receptacle → its contents, once revealed. */
  contents: Map<string, string[]>;
  /** Openable receptacle → open? (absent: closed as far as we know). */
  open: Map<string, boolean>;
  visited: Set<string>;
  holding?: string;
  /** Object → its states (`hot`, `cool`, `clean`). */
  states: Map<string, Set<string>>;
  /** Lamp → the receptacle it stands at. */
  lamps: Map<string, string>;
  lampsOn: Set<string>;
  /** Every entity name seen this episode (to number new objects). */
  names: Set<string>;
  /** Receptacles the env showed without open/close commands while there. */
  fixed: Set<string>;
}

/**
 * The LLM-free experience model for ALFWorld-like household envs. It knows the public text
 * grammar and what the buffer's real episodes showed (rooms, what lies where, what opens, which
 * appliance does what, where lamps stand). Each prediction rebuilds an episode memory from the
 * history (contents seen, open/closed, inventory, object states, lamps), so a revisited receptacle
 * shows what it showed before, updated by takes and moves; a receptacle never seen gets plausible
 * contents from the knowledge, seeded by task and receptacle (deterministic); the task's object
 * (and lamp) is placed in a plausible unseen receptacle so the task stays solvable. Reward 1 and
 * termination when the instruction's goal (public ALFWorld task semantics) holds.
 */
export class HouseholdExperienceModel implements ExperienceModel {
  readonly id = 'llm-free/household';

  constructor(private readonly knowledge: HouseholdKnowledge) {}

  async initial(task: Task, demonstrations: readonly RetrievedTransition[]): Promise<Observation> {
    const goal = parseGoal(task.instruction);
    const needed = this.neededTypes(goal);
    const fits = (receptacles: readonly string[]) => {
      const types = new Set(receptacles.map(typeOf));
      return needed.every((alternatives) => alternatives.some((t) => types.has(t)));
    };
    const fromDemos = demonstrations
      .filter((d) => d.t === 0)
      .map((d) => parseFeedback(d.state.text))
      .flatMap((f) => (f.kind === 'start' ? [f.receptacles] : []));
    const known = this.knowledge.starts.map((s) => s.receptacles);
    const candidates = [...fromDemos.filter(fits), ...known.filter(fits)];
    const pool = candidates.length > 0 ? candidates : [...fromDemos, ...known];
    const base = fromDemos.find(fits) ?? pool[hash(task.id) % Math.max(1, pool.length)] ?? [];
    const receptacles = roomLike(base, pool);
    return {
      text: renderStart(receptacles, task.instruction),
      instruction: task.instruction,
      actions: admissibleCommands({
        receptacles,
        openable: false,
        open: false,
        contents: [],
        lamps: [],
        pickable: () => true,
      }),
    };
  }

  async predict({
    task,
    history,
    state,
    action,
  }: ExperienceRequest): Promise<ExperiencePrediction> {
    const goal = parseGoal(task.instruction);
    const memory = this.remember(history, state);
    const command = parseCommand(action);
    const admissible = state.actions ? state.actions.includes(action) : command !== undefined;
    if (!command || !admissible) {
      return {
        reasoning: `"${action}" is not an admissible command here: nothing happens, the state stays as it is.`,
        nextState: { ...state, instruction: task.instruction },
        reward: 0,
        terminated: false,
      };
    }
    const notes: string[] = [];
    const text = this.apply(task, goal, memory, command, notes);
    const success = goal !== undefined && goalHolds(memory, goal);
    if (goal === undefined) notes.push('the instruction matches no known task template: no reward');
    else
      notes.push(
        success
          ? `the goal (${describe(goal)}) now holds: reward 1, episode over`
          : `the goal (${describe(goal)}) does not hold yet`,
      );
    // Commands that change no place, hand or door leave the env's command list as it was.
    const unchanged = ['inventory', 'look', 'examine', 'use', 'heat', 'cool', 'clean'];
    const actions =
      state.actions && unchanged.includes(command.verb)
        ? [...state.actions]
        : this.commands(memory);
    return {
      reasoning: `${notes.join('; ')}.`,
      nextState: { text, instruction: task.instruction, actions },
      reward: success ? 1 : 0,
      terminated: success,
    };
  }

  /** Receptacle types the room must have for the goal (alternatives per requirement). */
  private neededTypes(goal: Goal | undefined): string[][] {
    if (!goal) return [];
    const needed: string[][] = [];
    if (goal.receptacle) needed.push([goal.receptacle]);
    const verb = {
      pick_clean_then_place: 'clean',
      pick_heat_then_place: 'heat',
      pick_cool_then_place: 'cool',
    }[goal.type as string];
    if (verb) {
      const appliances = [...this.knowledge.transforms]
        .filter(([, v]) => v === verb)
        .map(([r]) => r);
      if (appliances.length > 0) needed.push(appliances);
    }
    if (goal.light) {
      const places = [...(this.knowledge.lampPlaces.get(goal.light)?.keys() ?? [])];
      if (places.length > 0) needed.push(places);
    }
    return needed;
  }

  private isOpenable(receptacle: string, memory: Memory): boolean {
    if (memory.fixed.has(receptacle)) return false;
    return this.knowledge.openable.has(typeOf(receptacle)) || memory.open.has(receptacle);
  }

  /** Rebuilds the episode memory from the history and the current state. */
  private remember(history: readonly Step[], state: Observation): Memory {
    const memory: Memory = {
      receptacles: new Set(),
      contents: new Map(),
      open: new Map(),
      visited: new Set(),
      states: new Map(),
      lamps: new Map(),
      lampsOn: new Set(),
      names: new Set(),
      fixed: new Set(),
    };
    const observations = [...history.map((s) => s.observation), state];
    for (const o of observations) {
      const f = parseFeedback(o.text);
      if (f.kind === 'start') for (const r of f.receptacles) memory.receptacles.add(r);
      for (const a of o.actions ?? []) {
        const c = parseCommand(a);
        if (c?.verb === 'go') memory.receptacles.add(c.target);
      }
    }
    if (history.length === 0) this.observe(memory, state);
    for (const step of history) {
      const command = parseCommand(step.action);
      const f = parseFeedback(step.observation.text);
      if (command && matches(command, f)) this.effect(memory, f);
      this.observe(memory, step.observation);
    }
    return memory;
  }

  /** Notes the lamps a state offers at the current location and every name it mentions. */
  private observe(memory: Memory, o: Observation): void {
    const at = memory.location;
    if (at !== undefined && o.actions) {
      if (o.actions.includes(`close ${at}`)) memory.open.set(at, true);
      else if (o.actions.includes(`open ${at}`)) memory.open.set(at, false);
      else memory.fixed.add(at);
    }
    for (const a of o.actions ?? []) {
      const c = parseCommand(a);
      if (!c) continue;
      if (c.verb === 'use' && memory.location) memory.lamps.set(c.target, memory.location);
      if (c.verb === 'take' || c.verb === 'move') memory.names.add(c.object);
      if (c.verb === 'examine') memory.names.add(c.target);
    }
  }

  /** Applies what an observed feedback sentence says happened. */
  private effect(memory: Memory, f: ReturnType<typeof parseFeedback>): void {
    const reveal = (at: string, contents: readonly string[]) => {
      memory.contents.set(at, [...contents]);
      for (const o of contents) memory.names.add(o);
    };
    switch (f.kind) {
      case 'arrive':
        memory.location = f.at;
        memory.visited.add(f.at);
        memory.receptacles.add(f.at);
        if (f.closed) memory.open.set(f.at, false);
        if (f.contents) reveal(f.at, f.contents);
        break;
      case 'open':
        memory.open.set(f.at, true);
        reveal(f.at, f.contents);
        break;
      case 'close':
        memory.open.set(f.at, false);
        break;
      case 'take': {
        const list = memory.contents.get(f.from);
        if (list)
          memory.contents.set(
            f.from,
            list.filter((o) => o !== f.object),
          );
        memory.holding = f.object;
        memory.names.add(f.object);
        break;
      }
      case 'move': {
        const list = memory.contents.get(f.to) ?? [];
        if (!list.includes(f.object)) list.push(f.object);
        memory.contents.set(f.to, list);
        memory.holding = undefined;
        break;
      }
      case 'transform': {
        const states = memory.states.get(f.object) ?? new Set<string>();
        states.add(STATE_WORD[f.verb]);
        memory.states.set(f.object, states);
        break;
      }
      case 'use':
        memory.lampsOn.add(f.lamp);
        if (memory.location) memory.lamps.set(f.lamp, memory.location);
        break;
      case 'examine-receptacle':
        if (f.closed === true) memory.open.set(f.at, false);
        else {
          if (f.closed === false) memory.open.set(f.at, true);
          reveal(f.at, f.contents);
        }
        break;
      case 'inventory':
        memory.holding = f.holding;
        break;
      case 'look':
        memory.location = f.facing;
        for (const lamp of f.nextTo) memory.lamps.set(lamp, f.facing);
        break;
      default:
        break;
    }
  }

  /** Predicts one valid command's feedback, updating the memory; notes explain. */
  private apply(
    task: Task,
    goal: Goal | undefined,
    memory: Memory,
    c: Command,
    notes: string[],
  ): string {
    switch (c.verb) {
      case 'go': {
        const at = c.target;
        const first = !memory.visited.has(at);
        memory.location = at;
        memory.visited.add(at);
        if (first) this.placeLamp(goal, memory, at, notes);
        if (this.isOpenable(at, memory) && !memory.open.get(at)) {
          notes.push(`${typeOf(at)}s open and close (seen in the buffer): ${at} is closed`);
          return render.arriveClosed(at);
        }
        const contents = this.reveal(task, goal, memory, at, notes);
        return this.isOpenable(at, memory)
          ? render.arriveOpen(at, contents)
          : render.arriveOn(at, contents);
      }
      case 'open': {
        memory.open.set(c.target, true);
        return render.open(c.target, this.reveal(task, goal, memory, c.target, notes));
      }
      case 'close':
        memory.open.set(c.target, false);
        notes.push(`closed ${c.target}`);
        return render.close(c.target);
      case 'take': {
        if (this.isOpenable(c.target, memory)) memory.open.set(c.target, true);
        const list = memory.contents.get(c.target) ?? [];
        memory.contents.set(
          c.target,
          list.filter((o) => o !== c.object),
        );
        memory.holding = c.object;
        notes.push(`${c.object} leaves ${c.target} and is now carried`);
        return render.take(c.object, c.target);
      }
      case 'move': {
        if (this.isOpenable(c.target, memory)) memory.open.set(c.target, true);
        const list = memory.contents.get(c.target) ?? [];
        if (!list.includes(c.object)) list.push(c.object);
        memory.contents.set(c.target, list);
        memory.holding = undefined;
        notes.push(`${c.object} now lies in ${c.target}`);
        return render.move(c.object, c.target);
      }
      case 'heat':
      case 'cool':
      case 'clean': {
        const states = memory.states.get(c.object) ?? new Set<string>();
        states.add(STATE_WORD[c.verb]);
        memory.states.set(c.object, states);
        notes.push(`${c.object} is now ${STATE_WORD[c.verb]}`);
        return render.transform(c.verb, c.object, c.target);
      }
      case 'use':
        memory.lampsOn.add(c.target);
        notes.push(`${c.target} is on`);
        return render.use(c.target);
      case 'examine': {
        const target = c.target;
        if (memory.receptacles.has(target)) {
          if (!this.isOpenable(target, memory))
            return render.examineReceptacle(target, this.reveal(task, goal, memory, target, notes));
          if (!memory.open.get(target)) return render.examineClosed(target);
          return render.examineOpen(target, this.reveal(task, goal, memory, target, notes));
        }
        const state = [...(memory.states.get(target) ?? [])].at(-1);
        return render.examineObject(target, state, this.knowledge.containers.has(typeOf(target)));
      }
      case 'inventory':
        return render.inventory(memory.holding);
      case 'look':
        return memory.location === undefined
          ? renderStart([...memory.receptacles])
          : render.look(
              memory.location,
              this.lampsAt(memory, memory.location).filter((l) =>
                this.knowledge.nextTo.has(typeOf(l)),
              ),
            );
    }
  }

  /** The contents of a receptacle: as seen this episode, else generated from the knowledge. */
  private reveal(
    task: Task,
    goal: Goal | undefined,
    memory: Memory,
    at: string,
    notes: string[],
  ): string[] {
    const known = memory.contents.get(at);
    if (known) {
      notes.push(`${at} was seen earlier this episode: showing the same contents`);
      return known;
    }
    const type = typeOf(at);
    const stats = this.knowledge.contents.get(type);
    const random = rng(hash(`${task.id}|${at}`));
    const contents: string[] = [];
    if (stats && stats.seen > 0 && stats.empty / stats.seen <= 0.5) {
      const filled = Math.max(1, stats.seen - stats.empty);
      const n = Math.max(1, Math.round(stats.objects / filled));
      const pool = [...stats.types].filter(([t]) => t !== goal?.object);
      for (let i = 0; i < n && pool.length > 0; i++) {
        const total = pool.reduce((s, [, w]) => s + w, 0);
        let r = random() * total;
        let index = 0;
        for (; index < pool.length - 1; index++) {
          r -= (pool[index] as [string, number])[1];
          if (r <= 0) break;
        }
        const [picked] = pool.splice(index, 1)[0] as [string, number];
        contents.push(this.fresh(memory, picked));
      }
      notes.push(
        `${at} not seen yet: ${contents.length} object(s) drawn from what ${type}s held in the buffer`,
      );
    } else {
      notes.push(
        stats
          ? `${at} not seen yet: ${type}s were mostly empty in the buffer`
          : `${at} not seen yet and no ${type} in the buffer: empty`,
      );
    }
    if (goal) {
      const need = goal.type === 'pick_two_obj_and_place' ? 2 : 1;
      const have = countOf(memory, goal.object);
      if (have < need && this.plausibleFor(goal, memory, at)) {
        contents.push(this.fresh(memory, goal.object));
        notes.push(
          `the task needs a ${goal.object} and not enough were found yet: one is here, ${type}s are a plausible place for it (buffer counts)`,
        );
      }
    }
    memory.contents.set(at, contents);
    return contents;
  }

  /**
   * Is this (unseen) receptacle a plausible place for the task's object: its type held that object
   * type in the buffer at least a quarter as often as the room's best type, and it is not the
   * goal's target type (unless nothing else is left unseen)?
   */
  private plausibleFor(goal: Goal, memory: Memory, at: string): boolean {
    const unseen = [...memory.receptacles].filter((r) => !memory.contents.has(r) || r === at);
    const others = unseen.filter((r) => typeOf(r) !== goal.receptacle);
    if (others.length > 0 && typeOf(at) === goal.receptacle) return false;
    if (others.length <= 1) return true;
    const score = (r: string) => this.knowledge.affinity(goal.object, typeOf(r));
    const top = Math.max(...[...memory.receptacles].map(score));
    return score(at) >= top / 4 && score(at) > 0.02;
  }

  /**
   * Places the task's lamp, if none was seen yet, at the first receptacle of a type that held such
   * lamps in the buffer that the agent reaches for the first time carrying the task's object.
   */
  private placeLamp(goal: Goal | undefined, memory: Memory, at: string, notes: string[]): void {
    const light = goal?.light;
    if (!light || [...memory.lamps.keys()].some((l) => typeOf(l) === light)) return;
    const held = memory.holding;
    if (held === undefined || typeOf(held) !== goal?.object) return;
    const places = this.knowledge.lampPlaces.get(light);
    const unvisited = [...memory.receptacles].filter((r) => !memory.visited.has(r));
    if ((places?.get(typeOf(at)) ?? 0) === 0 && unvisited.length > 0) return;
    memory.lamps.set(`${light} 1`, at);
    notes.push(`the task's ${light} stands here (${typeOf(at)}s held lamps in the buffer)`);
  }

  private fresh(memory: Memory, type: string): string {
    let n = 1;
    while (memory.names.has(`${type} ${n}`)) n++;
    const name = `${type} ${n}`;
    memory.names.add(name);
    return name;
  }

  private lampsAt(memory: Memory, at: string): string[] {
    return [...memory.lamps].filter(([, r]) => r === at).map(([l]) => l);
  }

  private commands(memory: Memory): string[] {
    const at = memory.location;
    const openable = at !== undefined && this.isOpenable(at, memory);
    const transform = at === undefined ? undefined : this.knowledge.transforms.get(typeOf(at));
    return admissibleCommands({
      receptacles: [...memory.receptacles],
      ...(at !== undefined && { location: at }),
      openable,
      open: at !== undefined && memory.open.get(at) === true,
      contents: at === undefined ? [] : (memory.contents.get(at) ?? []),
      ...(memory.holding !== undefined && { holding: memory.holding }),
      lamps: at === undefined ? [] : this.lampsAt(memory, at),
      pickable: (o) => this.knowledge.canPick(o),
      canMove: (o, r) => this.knowledge.canMove(o, r),
      ...(transform && { transform }),
    });
  }
}

/** Does the feedback text report the effect of this command? (else the command failed). */
function matches(c: Command, f: ReturnType<typeof parseFeedback>): boolean {
  switch (c.verb) {
    case 'go':
      return f.kind === 'arrive' && f.at === c.target;
    case 'open':
      return f.kind === 'open' && f.at === c.target;
    case 'close':
      return f.kind === 'close' && f.at === c.target;
    case 'take':
      return f.kind === 'take' && f.object === c.object;
    case 'move':
      return f.kind === 'move' && f.object === c.object;
    case 'heat':
    case 'cool':
    case 'clean':
      return f.kind === 'transform' && f.verb === c.verb && f.object === c.object;
    case 'use':
      return f.kind === 'use' && f.lamp === c.target;
    case 'examine':
      return f.kind === 'examine-receptacle' || f.kind === 'examine-object';
    case 'inventory':
      return f.kind === 'inventory';
    case 'look':
      return f.kind === 'look';
  }
}

function countOf(memory: Memory, type: string): number {
  let n = memory.holding !== undefined && typeOf(memory.holding) === type ? 1 : 0;
  for (const list of memory.contents.values()) n += list.filter((o) => typeOf(o) === type).length;
  return n;
}

/** Public ALFWorld success conditions. */
function goalHolds(memory: Memory, goal: Goal): boolean {
  if (goal.type === 'look_at_obj_in_light') {
    const held = memory.holding;
    if (held === undefined || typeOf(held) !== goal.object) return false;
    return [...memory.lampsOn].some(
      (l) => typeOf(l) === goal.light && memory.lamps.get(l) === memory.location,
    );
  }
  const need = goal.type === 'pick_two_obj_and_place' ? 2 : 1;
  const state = requiredState(goal);
  let n = 0;
  for (const [r, list] of memory.contents) {
    if (typeOf(r) !== goal.receptacle) continue;
    n += list.filter(
      (o) =>
        typeOf(o) === goal.object &&
        (state === undefined || memory.states.get(o)?.has(state) === true),
    ).length;
  }
  return n >= need;
}

function describe(goal: Goal): string {
  if (goal.type === 'look_at_obj_in_light')
    return `hold a ${goal.object} under a lit ${goal.light}`;
  const state = requiredState(goal);
  const count = goal.type === 'pick_two_obj_and_place' ? 'two' : 'a';
  return `${count} ${state ? `${state} ` : ''}${goal.object} in a ${goal.receptacle}`;
}

/**
 * The room of a start widened by similar rooms in the buffer (mostly the same receptacle types):
 * receptacle types common among them (in at least a third) are added, and each type gets as many
 * instances as such rooms hold, so the room has what rooms of its kind tend to have.
 */
function roomLike(base: readonly string[], rooms: readonly (readonly string[])[]): string[] {
  const types = new Set(base.map(typeOf));
  const similar = rooms.filter((room) => {
    const other = new Set(room.map(typeOf));
    const shared = [...other].filter((t) => types.has(t)).length;
    return shared / new Set([...types, ...other]).size >= 0.5;
  });
  const frequency = new Map<string, number>();
  for (const room of similar)
    for (const t of new Set(room.map(typeOf))) frequency.set(t, (frequency.get(t) ?? 0) + 1);
  const common = (t: string) => types.has(t) || (frequency.get(t) ?? 0) >= similar.length / 3;
  const out = new Set(base);
  for (const room of similar) for (const r of room) if (common(typeOf(r))) out.add(r);
  return [...out];
}

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
