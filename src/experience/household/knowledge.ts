import type { Observation, Trajectory } from '../../core/types.ts';
import {
  parseCommand,
  parseFeedback,
  type Transform,
  typeOf,
} from '../../envs/formats/alfworld-grammar.ts';

/** What the buffer's real episodes showed about one receptacle type on first sight. */
export interface ContentStats {
  /** Receptacles of this type whose contents were revealed (first sight per episode). */
  seen: number;
  empty: number;
  /** Objects seen in them, in total. */
  objects: number;
  /** Object type → how often it was seen in this receptacle type. */
  types: Map<string, number>;
}

/**
 * What real episodes of one task showed of its world (a task is played in the same room every
 * time): the room's receptacles, what each held when first revealed (by object type), and where
 * its lamps stood.
 */
export interface TaskWorld {
  receptacles: Set<string>;
  contents: Map<string, Set<string>>;
  /** Lamp type → the receptacles it stood at. */
  lamps: Map<string, Set<string>>;
}

/** A real episode start: the opening observation with its receptacles. */
export interface Start {
  receptacles: string[];
  observation: Observation;
}

/**
 * What the replay buffer's real household trajectories teach: which receptacle types open, what
 * lies where, what can be picked up, which appliance transforms, where lamps stand, which objects
 * are containers, and the real episode starts (rooms). Learnt only from observed text.
 */
export class HouseholdKnowledge {
  readonly openable = new Set<string>();
  readonly contents = new Map<string, ContentStats>();
  readonly pickable = new Set<string>();
  /** Object types seen lying somewhere but never offered to `take`. */
  readonly fixed = new Set<string>();
  /** Receptacle type → the transform it offers a held object. */
  readonly transforms = new Map<string, Transform>();
  /** Lamp type → receptacle type → count. */
  readonly lampPlaces = new Map<string, Map<string, number>>();
  readonly containers = new Set<string>();
  /** Entity types a `look` lists next to the agent (floor lamps, say). */
  readonly nextTo = new Set<string>();
  /** `object type|receptacle type` pairs where `move` was offered / withheld while holding. */
  readonly moveOffered = new Set<string>();
  readonly moveWithheld = new Set<string>();
  /** Receptacle types that were offered a `move` at least once. */
  readonly accepting = new Set<string>();
  readonly starts: Start[] = [];
  /** Task id → what its real episodes showed of its world. */
  readonly worlds = new Map<string, TaskWorld>();
  /** Receptacle name → how many real episode starts listed it. */
  private readonly inRooms = new Map<string, number>();
  /** Success events: `verb` of the rewarded command → count (e.g. `move` 40, `use` 12). */
  readonly successVerbs = new Map<string, number>();

  static fromTrajectories(trajectories: Iterable<Trajectory>): HouseholdKnowledge {
    const k = new HouseholdKnowledge();
    for (const t of trajectories) k.add(t);
    return k;
  }

  /** Learns from one real trajectory. */
  add(trajectory: Trajectory): void {
    const first = parseFeedback(trajectory.initial.text);
    if (first.kind === 'start')
      this.starts.push({ receptacles: first.receptacles, observation: trajectory.initial });
    const world = this.worldOf(trajectory.task.id);
    if (first.kind === 'start')
      for (const r of first.receptacles) {
        world.receptacles.add(r);
        this.inRooms.set(r, (this.inRooms.get(r) ?? 0) + 1);
      }
    const revealed = new Set<string>();
    let previous = trajectory.initial;
    let holding: string | undefined;
    let location: string | undefined;
    for (const step of trajectory.steps) {
      const valid = previous.actions?.includes(step.action) ?? true;
      previous = step.observation;
      const actions = step.observation.actions ?? [];
      if (valid) {
        const g = parseFeedback(step.observation.text);
        if (g.kind === 'take') holding = g.object;
        if (g.kind === 'move') holding = undefined;
        if (g.kind === 'inventory') holding = g.holding;
        if (g.kind === 'arrive') location = g.at;
      }
      const visible =
        location !== undefined &&
        (actions.includes(`close ${location}`) || !actions.includes(`open ${location}`));
      if (holding !== undefined && location !== undefined && visible) {
        const pair = `${typeOf(holding)}|${typeOf(location)}`;
        if (actions.includes(`move ${holding} to ${location}`)) {
          this.moveOffered.add(pair);
          this.accepting.add(typeOf(location));
        } else this.moveWithheld.add(pair);
      }
      if (step.reward > 0) {
        const verb = parseCommand(step.action)?.verb ?? '?';
        this.successVerbs.set(verb, (this.successVerbs.get(verb) ?? 0) + 1);
      }
      for (const a of actions) {
        const c = parseCommand(a);
        if (!c) continue;
        if (c.verb === 'take') this.pickable.add(typeOf(c.object));
        if (c.verb === 'open' || c.verb === 'close') this.openable.add(typeOf(c.target));
        if (c.verb === 'heat' || c.verb === 'cool' || c.verb === 'clean')
          this.transforms.set(typeOf(c.target), c.verb);
      }
      if (!valid) continue;
      const f = parseFeedback(step.observation.text);
      if (f.kind === 'examine-object' && f.container) this.containers.add(typeOf(f.object));
      if (f.kind === 'look') for (const o of f.nextTo) this.nextTo.add(typeOf(o));
      const at = f.kind === 'arrive' || f.kind === 'open' ? f.at : undefined;
      if (at === undefined) continue;
      const carrying = actions.some((a) => a.startsWith('move '));
      for (const a of actions) {
        const c = parseCommand(a);
        if (c?.verb !== 'use') continue;
        const places = this.lampPlaces.get(typeOf(c.target)) ?? new Map<string, number>();
        places.set(typeOf(at), (places.get(typeOf(at)) ?? 0) + 1);
        this.lampPlaces.set(typeOf(c.target), places);
        const stood = world.lamps.get(typeOf(c.target)) ?? new Set<string>();
        world.lamps.set(typeOf(c.target), stood.add(at));
      }
      if (f.kind === 'arrive' && f.closed) this.openable.add(typeOf(at));
      const list = f.kind === 'arrive' || f.kind === 'open' ? f.contents : undefined;
      if (!list) continue;
      if (!carrying)
        for (const o of list)
          if (!actions.includes(`take ${o} from ${at}`)) this.fixed.add(typeOf(o));
      if (revealed.has(at)) continue;
      revealed.add(at);
      if (!world.contents.has(at)) world.contents.set(at, new Set(list.map(typeOf)));
      const stats = this.contents.get(typeOf(at)) ?? {
        seen: 0,
        empty: 0,
        objects: 0,
        types: new Map<string, number>(),
      };
      stats.seen++;
      if (list.length === 0) stats.empty++;
      stats.objects += list.length;
      for (const o of list) stats.types.set(typeOf(o), (stats.types.get(typeOf(o)) ?? 0) + 1);
      this.contents.set(typeOf(at), stats);
    }
  }

  /** The share of the real episode starts whose room has a receptacle of this very name. */
  roomShare(receptacle: string): number {
    return this.starts.length === 0 ? 0 : (this.inRooms.get(receptacle) ?? 0) / this.starts.length;
  }

  private worldOf(task: string): TaskWorld {
    let world = this.worlds.get(task);
    if (!world) {
      world = { receptacles: new Set(), contents: new Map(), lamps: new Map() };
      this.worlds.set(task, world);
    }
    return world;
  }

  /** Can an object of this type be picked up? Unknown types are assumed portable. */
  canPick(object: string): boolean {
    const type = typeOf(object);
    return this.pickable.has(type) || !this.fixed.has(type);
  }

  /** Can an object of this type be put in a receptacle of that type? */
  canMove(object: string, receptacle: string): boolean {
    const pair = `${typeOf(object)}|${typeOf(receptacle)}`;
    if (this.moveOffered.has(pair)) return true;
    if (this.moveWithheld.has(pair)) return false;
    return this.accepting.has(typeOf(receptacle)) || !this.contents.has(typeOf(receptacle));
  }

  /**
   * How often the buffer's receptacles of this type held an object of that type on first sight
   * (objects counted, so at most an upper bound; 1 at most); 1 for a type never seen.
   */
  holdShare(object: string, receptacle: string): number {
    const stats = this.contents.get(receptacle);
    if (!stats || stats.seen === 0) return 1;
    return Math.min(1, (stats.types.get(object) ?? 0) / stats.seen);
  }

  /** How plausible it is to find `object` type in `receptacle` type (a smoothed frequency). */
  affinity(object: string, receptacle: string): number {
    const stats = this.contents.get(receptacle);
    if (!stats) return 0;
    return ((stats.types.get(object) ?? 0) + 0.01) / (stats.seen + 1);
  }
}
