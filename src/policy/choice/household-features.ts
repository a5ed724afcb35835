import { contentWords, words } from '../../core/text.ts';
import { type EpisodeMemory, episodeMemory, kindOf, parseCommand } from './episode-memory.ts';
import type { FamilyFeatures } from './feature-set.ts';

/** A household decision's facts: the episode memory and what the task asks for. */
export interface HouseholdView {
  memory: EpisodeMemory;
  wanted: Set<string>;
  /** Treatments the instruction asks for: `heat` (hot), `cool`, `clean`. */
  treatments: Set<string>;
}

const TREATMENT_CUES: Record<string, string> = {
  hot: 'heat',
  heat: 'heat',
  warm: 'heat',
  cool: 'cool',
  cold: 'cool',
  chilled: 'cool',
  clean: 'clean',
  rinsed: 'clean',
};

/**
 * The household's features (ALFWorld's commands), read from its episode memory: whether a place
 * is unvisited, holds a task object, is the goal's receptacle; whether an object is a task
 * object, still needs its treatment, is held.
 *
 * Action block (24, shared with the shop): 8 place unvisited (or container unopened); 9 a task
 * object was seen there; 10 the goal's receptacle (or tool); 11 the agent is there; 12 a task
 * object; 13 the goal's receptacle kind; 14 its treatment done; 15 the treatment is due.
 * State block: 1 holding something; 2 holding a task object; 3 a task object located and not
 * placed; 4 places visited.
 */
export const householdFeatures: FamilyFeatures<HouseholdView> = {
  name: 'household',
  actionScalars: 24,
  stateScalars: 5,

  view(decision) {
    const { instruction } = decision.observation;
    return {
      memory: episodeMemory(decision.history, decision.observations ?? []),
      wanted: new Set(contentWords(instruction)),
      treatments: new Set(words(instruction).flatMap((w) => TREATMENT_CUES[w] ?? [])),
    };
  },

  action(view, _decision, action, out) {
    const { memory } = view;
    const command = parseCommand(action.trim().toLowerCase());
    if (command?.verb === 'go to') {
      const place = command.target;
      out[8] = memory.visits.has(place) ? 0 : 1;
      out[9] = [...memory.seenAt].some(
        ([object, at]) => at === place && isRelevant(view, object) && !memory.placed.has(object),
      )
        ? 1
        : 0;
      out[10] = view.wanted.has(kindOf(place)) ? 1 : 0;
      out[11] = place === memory.location ? 1 : 0;
    } else if (command?.verb === 'open') {
      out[8] = memory.opened.has(command.target) ? 0 : 1;
    } else if (command?.verb === 'take') {
      out[12] = isRelevant(view, command.object) ? 1 : -1;
    } else if (command?.verb === 'move') {
      const { object, target } = command;
      const done = [...view.treatments].every((t) => memory.treated.has(`${t}:${object}`));
      out[12] = isRelevant(view, object) ? 1 : -1;
      out[13] = view.wanted.has(kindOf(target)) ? 1 : -1;
      out[14] = done ? 1 : -1;
    } else if (command?.verb === 'heat' || command?.verb === 'cool' || command?.verb === 'clean') {
      const wantedHere = view.treatments.has(command.verb) && isRelevant(view, command.object);
      out[15] = wantedHere && !memory.treated.has(`${command.verb}:${command.object}`) ? 1 : -1;
    } else if (command?.verb === 'use') {
      out[10] = view.wanted.has(kindOf(command.target)) ? 1 : 0;
      out[12] = memory.held !== undefined && isRelevant(view, memory.held) ? 1 : -1;
    }
  },

  state(view, _decision, out) {
    const { memory } = view;
    out[1] = memory.held !== undefined ? 1 : 0;
    out[2] = memory.held !== undefined && isRelevant(view, memory.held) ? 1 : 0;
    out[3] = relevantSeen(view) ? 1 : 0;
    out[4] = Math.min(1, memory.visits.size / 20);
  },
};

/** An object of the kind the instruction names (`plate 1` for "put a plate in …"). */
function isRelevant(view: HouseholdView, object: string): boolean {
  return view.wanted.has(kindOf(object));
}

/** A task object was seen somewhere and is neither held nor already placed. */
function relevantSeen(view: HouseholdView): boolean {
  for (const object of view.memory.seenAt.keys())
    if (isRelevant(view, object) && !view.memory.placed.has(object)) return true;
  return false;
}
