import { hashString, Rng } from '../../core/rng.ts';
import type { Observation, Task } from '../../core/types.ts';
import {
  admissibleCommands,
  type Command,
  type Goal,
  parseGoal,
  render,
  renderStart,
  STATE_WORD,
  typeOf,
} from '../../envs/formats/alfworld-grammar.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from '../experience-model.ts';
import { anyWrong } from '../uncertainty.ts';
import {
  freshName,
  lampsAt,
  type Memory,
  parseCommand,
  parseFeedback,
  rememberEpisode,
} from './episode-memory.ts';
import { countOf, describeGoal, goalHolds } from './goal-state.ts';
import type { HouseholdKnowledge } from './knowledge.ts';
import { roomLike } from './room.ts';

/**
 * The LLM-free experience model for ALFWorld-like household envs. It knows the public text
 * grammar and what the buffer's real episodes showed (rooms, what lies where, what opens, which
 * appliance does what, where lamps stand). Each prediction rebuilds an episode memory from the
 * history (contents seen, open/closed, inventory, object states, lamps), so a revisited receptacle
 * shows what it showed before, updated by takes and moves; a receptacle never seen gets plausible
 * contents from the knowledge, seeded by task and receptacle (deterministic); the task's object
 * (and lamp) is placed in a plausible unseen receptacle so the task stays solvable. Reward 1 and
 * termination when the instruction's goal (public ALFWorld task semantics) holds.
 *
 * Its uncertainty is that of what a step makes up that the task's outcome rests on (see
 * `guessed`): whether a receptacle holds the task's object on first sight, where its lamp stands,
 * whether the room has the receptacle an object is put in or treated with. What the grammar and
 * the episode memory decide (take, an ending by the goal's rules, a command the env refuses) adds
 * none: its doubt lies in the guesses it rests on, counted where they were made.
 */
export class HouseholdExperienceModel implements ExperienceModel {
  readonly id = 'llm-free/household';
  /** It learnt the buffer's real episodes beforehand; per-step demonstrations tell it nothing. */
  readonly readsDemonstrations = false;

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
    const base = fromDemos.find(fits) ?? pool[hashString(task.id) % Math.max(1, pool.length)] ?? [];
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
    const memory = rememberEpisode(history, state);
    const command = parseCommand(action);
    const admissible = state.actions ? state.actions.includes(action) : command !== undefined;
    if (!command || !admissible) {
      return {
        reasoning: `"${action}" is not an admissible command here: nothing happens, the state stays as it is.`,
        nextState: { ...state, instruction: task.instruction },
        reward: 0,
        terminated: false,
        uncertainty: 0,
      };
    }
    const notes: string[] = [];
    const before = { revealed: new Set(memory.contents.keys()), lamps: memory.lamps.size };
    const text = this.apply(task, goal, memory, command, notes);
    const success = goal !== undefined && goalHolds(memory, goal);
    if (goal === undefined) notes.push('the instruction matches no known task template: no reward');
    else
      notes.push(
        success
          ? `the goal (${describeGoal(goal)}) now holds: reward 1, episode over`
          : `the goal (${describeGoal(goal)}) does not hold yet`,
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
      uncertainty: this.guessed(task, goal, command, memory, before),
    };
  }

  /**
   * How unsure what the step made up is, where the task's outcome rests on it, each guess taken
   * as its chance of being wrong:
   * - a receptacle's first sight: whether it holds the task's object, 0 or 1 by what real
   *   episodes of this task saw there; where none saw it, 1 if it shows one (placed there for the
   *   task), else how often such receptacles held one in the buffer;
   * - a lamp placed: 0 where a real episode of this task used one of its type there, else 1;
   * - an object put in or treated with a receptacle: 0 or 1 where real episodes of this task
   *   showed its room (the room has it or not), else 1 − the share of real rooms with one.
   * The rest is made up too (other objects, arriving at a receptacle the room may lack), but
   * moves no outcome (the next `go` goes anywhere): MOPO's bound counts a model's error only as
   * far as it moves the value. Measured on synthetic successes of BC (500 offline episodes), the
   * contents' whole overlap told those the real env refutes no better than chance.
   */
  private guessed(
    task: Task,
    goal: Goal | undefined,
    command: Command,
    memory: Memory,
    before: { revealed: ReadonlySet<string>; lamps: number },
  ): number {
    const world = this.knowledge.worlds.get(task.id);
    const at = 'target' in command ? command.target : undefined;
    if (at === undefined) return 0;
    if (['move', 'heat', 'cool', 'clean'].includes(command.verb))
      return world && world.receptacles.size > 0
        ? Number(!world.receptacles.has(at))
        : 1 - this.knowledge.roomShare(at);
    if (command.verb !== 'go' && command.verb !== 'open' && command.verb !== 'examine') return 0;
    const shown = memory.contents.get(at);
    let object = 0;
    if (goal && shown && !before.revealed.has(at)) {
      const shows = shown.some((o) => typeOf(o) === goal.object);
      const real = world?.contents.get(at);
      object = real
        ? Number(shows !== real.has(goal.object))
        : shows
          ? 1
          : this.knowledge.holdShare(goal.object, typeOf(at));
    }
    let lamp = 0;
    if (memory.lamps.size > before.lamps)
      for (const [name, stands] of memory.lamps)
        if (stands === at) lamp = Number(!world?.lamps.get(typeOf(name))?.has(at));
    return anyWrong(object, lamp);
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
              lampsAt(memory, memory.location).filter((l) => this.knowledge.nextTo.has(typeOf(l))),
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
    const random = new Rng(`${task.id}|${at}`);
    const contents: string[] = [];
    if (stats && stats.seen > 0 && stats.empty / stats.seen <= 0.5) {
      const filled = Math.max(1, stats.seen - stats.empty);
      const n = Math.max(1, Math.round(stats.objects / filled));
      const pool = [...stats.types].filter(([t]) => t !== goal?.object);
      for (let i = 0; i < n && pool.length > 0; i++) {
        const total = pool.reduce((s, [, w]) => s + w, 0);
        let r = random.float() * total;
        let index = 0;
        for (; index < pool.length - 1; index++) {
          r -= (pool[index] as [string, number])[1];
          if (r <= 0) break;
        }
        const [picked] = pool.splice(index, 1)[0] as [string, number];
        contents.push(freshName(memory, picked));
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
        contents.push(freshName(memory, goal.object));
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
      lamps: at === undefined ? [] : lampsAt(memory, at),
      pickable: (o) => this.knowledge.canPick(o),
      canMove: (o, r) => this.knowledge.canMove(o, r),
      ...(transform && { transform }),
    });
  }
}
