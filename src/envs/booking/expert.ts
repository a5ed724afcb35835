import type { Rng } from '../../core/rng.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type { EnvExpert } from '../env.ts';
import { type BookingGoal, bestRoom, matching } from './goals.ts';
import { generateInventory, type Room, roomTotal } from './inventory.ts';
import { BookingSite, DETAIL_FIELDS, type SEARCH_FIELDS } from './site.ts';
import { bookingSpec } from './tasks.ts';
import { MONTH } from './words.ts';

/** A decision: the action and why. */
interface Decision {
  action: string;
  reasoning: string;
}

/** Reasonings that later decisions read back as the expert's beliefs. */
const SETTLED = /^settled for (R-\d+) \(noise\)$/;
const TYPED = /^typed the (name|phone) as "(.+)" without noticing \(noise\)$/;

/** What the expert is after: the room and the form values, as it believes them. */
interface Aim {
  room: Room;
  search: Record<(typeof SEARCH_FIELDS)[number], string>;
  details: Record<(typeof DETAIL_FIELDS)[number], string>;
}

/**
 * A scripted guest who knows the hidden inventory (it rebuilds the site from the task spec and
 * replays the episode's actions): it fills the search form, searches, opens the listed rooms of
 * the right kind from the cheapest up until it reaches the one the request means (features show
 * only on a room's page), books it, fills in the guest's details, and confirms once the review
 * page shows exactly the request. Each decision is re-planned from the true page, so it backs
 * out of wrong pages.
 *
 * With probability ε a decision goes wrong instead. Slips cost steps: a wrong value in a form
 * (noticed on the next look), submitting a form before it is complete (an error page or wrong
 * results), opening a room it did not need, a malformed action (refused). Two lapses last and
 * end in a wrong booking: settling for a room that only partly fits, and a typo in the guest's
 * name or phone that it does not notice.
 */
export class BookingExpert implements EnvExpert {
  readonly id: string;
  /** Chance of a mistake at each decision: 0 plays perfectly. */
  readonly epsilon: number;

  constructor(options: { epsilon?: number } = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`BookingExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `booking-expert(eps=${this.epsilon})`;
  }

  async act(
    _observation: Observation,
    { task, history, rng }: { task: Task; history: readonly Step[]; rng: Rng },
  ): Promise<Decision> {
    const { inventorySeed, goal } = bookingSpec(task);
    const site = new BookingSite(generateInventory(inventorySeed));
    for (const step of history) site.execute(step.action);
    const aim = aimOf(goal, site, history);
    const viewed = new Set(
      history
        .filter((s) => !s.info?.invalidAction)
        .map((s) => /^click\[(R-\d+)\]$/.exec(s.action)?.[1]),
    );
    const plan = nextAction(site, goal, aim, viewed);
    if (rng.chance(this.epsilon)) {
      const options = MISTAKES.map((kind) => kind({ site, goal, aim, plan, rng })).filter(
        (d) => d !== undefined,
      );
      if (options.length > 0) return rng.pick(options);
    }
    return plan;
  }
}

/** The request as the expert believes it, after any lasting lapse in the history. */
function aimOf(goal: BookingGoal, site: BookingSite, history: readonly Step[]): Aim {
  const { town, arrival, nights, guests } = goal.stay;
  const aim: Aim = {
    room: bestRoom(goal, site.inventory) as Room,
    search: {
      town,
      arrival: `${MONTH} ${arrival}`,
      nights: String(nights),
      guests: String(guests),
    },
    details: { name: goal.name, phone: goal.phone, breakfast: goal.breakfast ? 'yes' : 'no' },
  };
  for (const step of history) {
    const settled = SETTLED.exec(step.reasoning ?? '');
    const room = site.inventory.rooms.find((r) => r.id === settled?.[1]);
    if (room) aim.room = room;
    const typed = TYPED.exec(step.reasoning ?? '');
    if (typed) aim.details[typed[1] as 'name' | 'phone'] = typed[2] as string;
  }
  return aim;
}

/** The next action toward the aim from the site's true page. */
function nextAction(
  site: BookingSite,
  goal: BookingGoal,
  aim: Aim,
  viewed: ReadonlySet<string | undefined>,
): Decision {
  const stayRight = JSON.stringify(site.stay) === JSON.stringify(goal.stay);
  const onRoom = site.room?.id === aim.room.id;
  const click = (label: string, reasoning: string) => ({ action: `click[${label}]`, reasoning });
  switch (site.page) {
    case 'search':
      return fill(site.search, aim.search) ?? click('Search', 'the search form is filled in');
    case 'results': {
      if (!stayRight) return click('Back to search', 'these results are for another stay');
      const stay = goal.stay;
      const candidates = matching({ ...(goal.kind && { kind: goal.kind }) }, site.results()).sort(
        (a, b) => roomTotal(a, stay) - roomTotal(b, stay),
      );
      const next = candidates.find((r) => r.id === aim.room.id || !viewed.has(r.id)) ?? aim.room;
      return click(
        next.id,
        next.id === aim.room.id
          ? `${next.id} is the cheapest that fits`
          : `check ${next.id}, the cheapest not yet seen`,
      );
    }
    case 'room':
      return onRoom
        ? click('Book this room', `${aim.room.id} is the one`)
        : click('Back to results', `${site.room?.id} lacks what is asked`);
    case 'details':
      if (!onRoom) return click('Back to room', 'this is not the room I want');
      return (
        fill(site.details, aim.details) ?? click('Continue', 'the guest details are filled in')
      );
    default: {
      const detailsRight = DETAIL_FIELDS.every((f) => site.details[f] === aim.details[f]);
      if (onRoom && stayRight && detailsRight)
        return click('Confirm booking', 'the review is right');
      return detailsRight
        ? click('Back to search', 'the stay or room is wrong')
        : click('Edit details', 'the guest details are wrong');
    }
  }
}

/** `set[…]` for the first field whose value differs from the aim's; undefined when all match. */
function fill(form: Record<string, string>, want: Record<string, string>): Decision | undefined {
  const field = Object.keys(want).find((f) => form[f] !== want[f]);
  if (field === undefined) return undefined;
  return { action: `set[${field}=${want[field]}]`, reasoning: `fill in the ${field}` };
}

interface MistakeContext {
  site: BookingSite;
  goal: BookingGoal;
  aim: Aim;
  plan: Decision;
  rng: Rng;
}

/** A wrong value for a form field (still well formed, so only reading the page reveals it). */
function wrongValue(field: string, value: string, rng: Rng): string {
  if (field === 'phone')
    return value.replace(/(\d)(\d)$/, '$2$1').replace(/^(\d{3}-\d{3})\d/, `$1${rng.int(10)}`);
  if (field === 'name') return value.replace(/[aeiou](?=[^aeiou]*$)/, '');
  if (field === 'breakfast') return value === 'yes' ? 'no' : 'yes';
  if (field === 'town') return value.split(' ')[0] as string;
  const n = Number(/\d+$/.exec(value)?.[0]);
  return value.replace(/\d+$/, String(n > 1 ? n - 1 : n + 1));
}

const MISTAKES: ReadonlyArray<(c: MistakeContext) => Decision | undefined> = [
  ({ site, aim, rng }) => {
    const want =
      site.page === 'search' ? aim.search : site.page === 'details' ? aim.details : undefined;
    if (!want) return undefined;
    const field = rng.pick(Object.keys(want));
    const value = wrongValue(field, (want as Record<string, string>)[field] as string, rng);
    return { action: `set[${field}=${value}]`, reasoning: `mistyped the ${field} (noise)` };
  },
  ({ site, aim, rng }) => {
    if (site.page !== 'details') return undefined;
    const field = rng.pick(['name', 'phone'] as const);
    const value = wrongValue(field, aim.details[field], rng);
    if (value === aim.details[field]) return undefined;
    return {
      action: `set[${field}=${value}]`,
      reasoning: `typed the ${field} as "${value}" without noticing (noise)`,
    };
  },
  ({ site, plan }) => {
    const submit =
      site.page === 'search' ? 'Search' : site.page === 'details' ? 'Continue' : undefined;
    if (!submit || !plan.action.startsWith('set[')) return undefined;
    return { action: `click[${submit}]`, reasoning: 'submitted the form too early (noise)' };
  },
  ({ site, plan, rng }) => {
    const others = site.results().filter((r) => `click[${r.id}]` !== plan.action);
    if (site.page !== 'results' || others.length === 0) return undefined;
    return {
      action: `click[${rng.pick(others).id}]`,
      reasoning: 'opened a room I did not need (noise)',
    };
  },
  ({ plan }) => ({
    action: plan.action
      .replace('=', ' ')
      .replace(/\[.*\]$/, (m) => (m.includes(' ') ? m : m.replace('[', '[the '))),
    reasoning: 'malformed the action (noise)',
  }),
  ({ site, goal, aim }) => {
    const room = site.room;
    if (site.page !== 'room' || !room || room.id === aim.room.id) return undefined;
    const partly =
      (goal.feature !== undefined && room.features.includes(goal.feature)) ||
      (goal.kind !== undefined && room.kind === goal.kind);
    return partly
      ? { action: 'click[Book this room]', reasoning: `settled for ${room.id} (noise)` }
      : undefined;
  },
];
