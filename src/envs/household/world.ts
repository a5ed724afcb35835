/**
 * The household's state and rules: where the agent stands, what it carries, which receptacles are
 * open, where every object is and whether it is clean, hot, cool, sliced or switched on.
 *
 * The rules are ALFWorld's PDDL domain (`alfred.pddl`) for one agent with one free hand: actions
 * happen at the receptacle the agent went to, openable receptacles must be open to take from or
 * put into, a receptacle only takes objects its type can contain, cleaning needs a sink basin,
 * heating a microwave and cooling a fridge (neither needs opening, as in ALFWorld). Each receptacle
 * has a location of its own, so `go to` always moves (ALFWorld sometimes puts two at one spot).
 *
 * `execute` either carries a command out and returns ALFWorld's feedback, or changes nothing and
 * says why in words. The env reports the latter as an invalid action, and ALFWorld as "Nothing
 * happens.".
 */

import { COMMAND_FORMS, type Command, parseCommand } from './commands.ts';
import {
  arrived,
  closed,
  describeReceptacle,
  examineObject,
  inventory,
  lookAround,
  lookFacing,
  moved,
  opened,
  pickedUp,
  put,
  type ReceptacleView,
  sliced,
  toggled,
  treated,
} from './feedback.ts';
import type { Scene, SceneReceptacle } from './scene.ts';
import { APPLIANCES, canContain, hasAffordance, type Treatment } from './vocabulary.ts';

/** An object as it is now. Only the world changes it, through commands. */
export interface ObjectState {
  readonly name: string;
  readonly type: string;
  /** The receptacle it is in (on the floor: stands next to); undefined while carried. */
  readonly receptacle: string | undefined;
  readonly onFloor: boolean;
  readonly clean: boolean;
  readonly hot: boolean;
  readonly cool: boolean;
  readonly sliced: boolean;
  readonly on: boolean;
}

type MutableObject = { -readonly [K in keyof ObjectState]: ObjectState[K] };

/** A command carried out, with ALFWorld's feedback, or refused, with the reason. */
export type Outcome = { ok: true; feedback: string } | { ok: false; reason: string };

const collator = new Intl.Collator('en', { numeric: true });

export class HouseholdWorld {
  private at: string | undefined;
  private held: string | undefined;

  private constructor(
    readonly scene: Scene,
    private readonly receptacles: ReadonlyMap<string, SceneReceptacle>,
    private readonly objects: Map<string, MutableObject>,
    private readonly openReceptacles: Set<string>,
  ) {}

  /** The scene's start: agent in the middle of the room, hands empty, everything closed. */
  static fromScene(scene: Scene): HouseholdWorld {
    const objects = new Map<string, MutableObject>();
    for (const o of scene.objects) {
      objects.set(o.name, {
        name: o.name,
        type: o.type,
        receptacle: o.receptacle,
        onFloor: o.onFloor,
        clean: false,
        hot: false,
        cool: false,
        sliced: false,
        on: false,
      });
    }
    return new HouseholdWorld(
      scene,
      new Map(scene.receptacles.map((r) => [r.name, r])),
      objects,
      new Set(),
    );
  }

  /** An independent copy, for planning ahead. */
  clone(): HouseholdWorld {
    const objects = new Map([...this.objects].map(([name, o]) => [name, { ...o }]));
    const copy = new HouseholdWorld(
      this.scene,
      this.receptacles,
      objects,
      new Set(this.openReceptacles),
    );
    copy.at = this.at;
    copy.held = this.held;
    return copy;
  }

  /** The receptacle the agent stands at; undefined in the middle of the room, where it starts. */
  get location(): string | undefined {
    return this.at;
  }

  /** The object in the agent's hand. */
  get holding(): ObjectState | undefined {
    return this.held === undefined ? undefined : this.objects.get(this.held);
  }

  receptacle(name: string): SceneReceptacle | undefined {
    return this.receptacles.get(name);
  }

  object(name: string): ObjectState | undefined {
    return this.objects.get(name);
  }

  allObjects(): IterableIterator<ObjectState> {
    return this.objects.values();
  }

  isOpen(receptacle: string): boolean {
    return this.openReceptacles.has(receptacle);
  }

  /** Whether its contents can be seen and reached: not openable, or open. */
  isAccessible(receptacle: string): boolean {
    return !this.receptacles.get(receptacle)?.openable || this.openReceptacles.has(receptacle);
  }

  /** The objects in a receptacle (not those on the floor beside it), open or not. */
  contents(receptacle: string): ObjectState[] {
    return [...this.objects.values()].filter((o) => o.receptacle === receptacle && !o.onFloor);
  }

  /** The objects the agent can see where it stands: in the receptacle if open, and on the floor. */
  visible(): ObjectState[] {
    return this.inSight();
  }

  /** ALFWorld's admissible commands in this state, sorted. */
  admissibleCommands(): string[] {
    const commands = ['inventory', 'look'];
    for (const name of this.receptacles.keys())
      if (name !== this.at) commands.push(`go to ${name}`);
    const held = this.holding;
    if (held) commands.push(`examine ${held.name}`);
    const here = this.at === undefined ? undefined : this.receptacles.get(this.at);
    if (here) {
      commands.push(`examine ${here.name}`);
      if (here.openable) commands.push(`${this.isOpen(here.name) ? 'close' : 'open'} ${here.name}`);
      for (const o of this.visible()) {
        commands.push(`examine ${o.name}`);
        if (!held && !o.onFloor && hasAffordance(o.type, 'pickup')) {
          commands.push(`take ${o.name} from ${here.name}`);
        }
        if (hasAffordance(o.type, 'light')) commands.push(`use ${o.name}`);
        if (held && hasAffordance(held.type, 'blade') && hasAffordance(o.type, 'slice')) {
          commands.push(`slice ${o.name} with ${held.name}`);
        }
      }
      if (held && this.isAccessible(here.name) && canContain(here.type, held.type)) {
        commands.push(`move ${held.name} to ${here.name}`);
      }
      for (const [treatment, appliance] of Object.entries(APPLIANCES) as [Treatment, string][]) {
        if (held && here.type === appliance && hasAffordance(held.type, treatment)) {
          commands.push(`${treatment} ${held.name} with ${here.name}`);
        }
      }
    }
    return commands.sort(collator.compare);
  }

  /** Carries out a typed command: ALFWorld's feedback, or why nothing happened. */
  execute(text: string): Outcome {
    const command = parseCommand(text);
    if (!command) {
      return refuse(`"${text}" is not a household command; commands are: ${COMMAND_FORMS}.`);
    }
    return this.apply(command);
  }

  private apply(c: Command): Outcome {
    switch (c.verb) {
      case 'go to':
        return this.goTo(c.receptacle);
      case 'open':
      case 'close':
        return this.openOrClose(c.verb, c.receptacle);
      case 'take':
        return this.take(c.object, c.receptacle);
      case 'move':
        return this.move(c.object, c.receptacle, c.legacy);
      case 'slice':
        return this.slice(c.object, c.blade);
      case 'use':
        return this.use(c.target);
      case 'examine':
        return this.examine(c.target);
      case 'inventory':
        return done(inventory(this.held));
      case 'look':
        return done(this.look());
      default:
        return this.treat(c.verb, c.object, c.receptacle);
    }
  }

  /** What `look` shows: the whole room from its middle, else the receptacle faced. */
  look(): string {
    if (this.at === undefined) return lookAround([...this.receptacles.keys()]);
    const floor = [...this.objects.values()].filter((o) => o.onFloor && o.receptacle === this.at);
    return lookFacing(
      [this.at],
      floor.map((o) => o.name),
    );
  }

  private inSight(): MutableObject[] {
    const here = this.at;
    if (here === undefined) return [];
    const accessible = this.isAccessible(here);
    return [...this.objects.values()].filter(
      (o) => o.receptacle === here && (o.onFloor || accessible),
    );
  }

  private view(receptacle: SceneReceptacle): ReceptacleView {
    return {
      name: receptacle.name,
      openable: receptacle.openable,
      open: this.isOpen(receptacle.name),
      contents: this.contents(receptacle.name).map((o) => o.name),
    };
  }

  /** The receptacle named, if the agent stands at it; else why not. */
  private here(name: string): SceneReceptacle | string {
    const receptacle = this.receptacles.get(name);
    if (!receptacle) return `there is no "${name}" in this room.`;
    if (this.at !== name) return `the ${name} is not where you are; go to ${name} first.`;
    return receptacle;
  }

  private goTo(name: string): Outcome {
    const receptacle = this.receptacles.get(name);
    if (!receptacle) return refuse(`there is no "${name}" in this room to go to.`);
    if (this.at === name) return refuse(`you are already at the ${name}.`);
    this.at = name;
    return done(arrived(this.view(receptacle)));
  }

  private openOrClose(verb: 'open' | 'close', name: string): Outcome {
    const receptacle = this.here(name);
    if (typeof receptacle === 'string') return refuse(receptacle);
    if (!receptacle.openable) return refuse(`the ${name} has no door or lid to ${verb}.`);
    if (this.isOpen(name) === (verb === 'open')) {
      return refuse(`the ${name} is already ${verb === 'open' ? 'open' : 'closed'}.`);
    }
    if (verb === 'close') {
      this.openReceptacles.delete(name);
      return done(closed(name));
    }
    this.openReceptacles.add(name);
    return done(opened(this.view(receptacle)));
  }

  private take(objectName: string, name: string): Outcome {
    if (this.held !== undefined) {
      return refuse(`your hand is full: you carry the ${this.held}; put it somewhere first.`);
    }
    const receptacle = this.here(name);
    if (typeof receptacle === 'string') return refuse(receptacle);
    if (!this.isAccessible(name)) return refuse(`the ${name} is closed; open it first.`);
    const o = this.objects.get(objectName);
    if (!o || o.receptacle !== name || o.onFloor) {
      return refuse(`there is no ${objectName} in or on the ${name}.`);
    }
    if (!hasAffordance(o.type, 'pickup')) return refuse(`the ${objectName} cannot be picked up.`);
    o.receptacle = undefined;
    this.held = o.name;
    return done(pickedUp(o.name, name));
  }

  private move(objectName: string, name: string, legacy: boolean): Outcome {
    if (this.held !== objectName) return refuse(`you are not carrying the ${objectName}.`);
    const receptacle = this.here(name);
    if (typeof receptacle === 'string') return refuse(receptacle);
    if (!this.isAccessible(name)) return refuse(`the ${name} is closed; open it first.`);
    const o = this.objects.get(objectName) as MutableObject;
    if (!canContain(receptacle.type, o.type)) {
      return refuse(`a ${o.type} does not go in or on a ${receptacle.type}.`);
    }
    o.receptacle = name;
    this.held = undefined;
    return done(legacy ? put(objectName, name) : moved(objectName, name));
  }

  private treat(treatment: Treatment, objectName: string, name: string): Outcome {
    if (this.held !== objectName) return refuse(`you are not carrying the ${objectName}.`);
    const receptacle = this.here(name);
    if (typeof receptacle === 'string') return refuse(receptacle);
    const appliance = APPLIANCES[treatment];
    if (receptacle.type !== appliance)
      return refuse(`only a ${appliance} can ${treatment} things.`);
    const o = this.objects.get(objectName) as MutableObject;
    if (!hasAffordance(o.type, treatment)) return refuse(`a ${o.type} cannot be ${treatment}ed.`);
    if (treatment === 'clean') o.clean = true;
    // Heating undoes cooling and cooling undoes heating, as in the PDDL domain.
    if (treatment === 'heat') Object.assign(o, { hot: true, cool: false });
    if (treatment === 'cool') Object.assign(o, { cool: true, hot: false });
    return done(treated(treatment, objectName, name));
  }

  private slice(objectName: string, bladeName: string): Outcome {
    if (this.held !== bladeName) return refuse(`you are not carrying the ${bladeName}.`);
    const blade = this.objects.get(bladeName) as MutableObject;
    if (!hasAffordance(blade.type, 'blade')) return refuse(`a ${blade.type} cannot cut anything.`);
    const o = this.inSight().find((v) => v.name === objectName);
    if (!o) return refuse(`you see no ${objectName} here.`);
    if (!hasAffordance(o.type, 'slice')) return refuse(`a ${o.type} cannot be sliced.`);
    o.sliced = true;
    return done(sliced(objectName, bladeName));
  }

  /**
   * Switches a lamp on or off. ALFWorld's own grammar words every use as "You turn on" (its
   * condition tests a flag that is never cleared); we report the switch's real new state.
   */
  private use(objectName: string): Outcome {
    const o = this.inSight().find((v) => v.name === objectName);
    if (!o) return refuse(`you see no ${objectName} here.`);
    if (!hasAffordance(o.type, 'light')) return refuse(`the ${objectName} has no switch.`);
    o.on = !o.on;
    return done(toggled(objectName, o.on));
  }

  private examine(name: string): Outcome {
    if (this.receptacles.has(name)) {
      const receptacle = this.here(name);
      if (typeof receptacle === 'string') return refuse(receptacle);
      return done(describeReceptacle(this.view(receptacle)));
    }
    const o =
      this.held === name ? this.holding : this.visible().find((visible) => visible.name === name);
    if (!o) return refuse(`you see no ${name} here.`);
    return done(
      examineObject({
        ...o,
        container: hasAffordance(o.type, 'container'),
        toggleable: hasAffordance(o.type, 'light'),
        sliceable: hasAffordance(o.type, 'slice'),
      }),
    );
  }
}

function done(feedback: string): Outcome {
  return { ok: true, feedback };
}

function refuse(reason: string): Outcome {
  return { ok: false, reason };
}
