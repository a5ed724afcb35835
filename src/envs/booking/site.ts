import { parseBracketAction } from '../actions.ts';
import { availableRooms, type Inventory, type Room, type Stay } from './inventory.ts';
import { MONTH, MONTH_DAYS } from './words.ts';

/** The site's pages, in the order a booking passes them. */
export type PageName = 'search' | 'results' | 'room' | 'details' | 'review' | 'done';

/** The search form's fields. */
export const SEARCH_FIELDS = ['town', 'arrival', 'nights', 'guests'] as const;
/** The guest details form's fields. */
export const DETAIL_FIELDS = ['name', 'phone', 'breakfast'] as const;

/** A confirmed booking: what the site records, and what the reward is read from. */
export interface Booking {
  room: string;
  stay: Stay;
  name: string;
  phone: string;
  breakfast: boolean;
}

/** Buttons, by page. */
export const BUTTONS: Record<PageName, readonly string[]> = {
  search: ['Search'],
  results: ['Back to search'],
  room: ['Book this room', 'Back to results'],
  details: ['Continue', 'Back to room'],
  review: ['Confirm booking', 'Edit details', 'Back to search'],
  done: [],
};

/** What an action did: refused (nothing changed), or done; `booking` once one is confirmed. */
export type SiteReply = { ok: false; reason: string } | { ok: true; booking?: Booking };

/**
 * The booking site's state and rules, replayable: the env drives one, the scripted expert
 * replays an episode's actions on its own copy. Actions are `set[field=value]` on a form and
 * `click[label]` for a button or a listed room.
 *
 * Forms take any text; what is wrong shows on submit, as a page of errors above the form
 * (a real site's validation). The search lists the rooms free for the whole stay that sleep the
 * guests, with their totals; a room's features show only on its own page. Confirming the
 * review page books the room for good.
 */
export class BookingSite {
  /** The page shown. */
  page: PageName = 'search';
  /** The search form as typed. */
  readonly search: Record<(typeof SEARCH_FIELDS)[number], string> = {
    town: '',
    arrival: '',
    nights: '',
    guests: '',
  };
  /** The guest details form as typed. */
  readonly details: Record<(typeof DETAIL_FIELDS)[number], string> = {
    name: '',
    phone: '',
    breakfast: 'no',
  };
  /** The stay the results are for, once a search went through. */
  stay: Stay | undefined;
  /** The room being looked at or booked. */
  room: Room | undefined;
  /** Validation errors of the last submit, shown until the page changes. */
  errors: string[] = [];

  constructor(readonly inventory: Inventory) {}

  /** The rooms the results page lists. */
  results(): Room[] {
    return this.stay ? availableRooms(this.inventory, this.stay) : [];
  }

  /** Carries out one action. */
  execute(action: string): SiteReply {
    const parsed = parseBracketAction(action);
    if (!parsed || (parsed.verb !== 'set' && parsed.verb !== 'click')) {
      return {
        ok: false,
        reason: `"${action}" is not an action: write set[field=value] or click[label].`,
      };
    }
    if (parsed.verb === 'set') return this.set(parsed.arg);
    return this.click(parsed.arg);
  }

  private set(arg: string): SiteReply {
    const match = /^([a-z]+)\s*=\s*(.*)$/is.exec(arg);
    const form: Record<string, string> | undefined =
      this.page === 'search' ? this.search : this.page === 'details' ? this.details : undefined;
    const field = match?.[1]?.toLowerCase() ?? '';
    if (!match || !form || !(field in form)) {
      const fields = form ? Object.keys(form).join(', ') : 'none on this page';
      return { ok: false, reason: `set[${arg}] names no field of this page; fields: ${fields}.` };
    }
    form[field] = (match[2] as string).trim();
    return { ok: true };
  }

  private click(label: string): SiteReply {
    const wanted = label.toLowerCase();
    const button = BUTTONS[this.page].find((b) => b.toLowerCase() === wanted);
    const room =
      this.page === 'results'
        ? this.results().find((r) => r.id.toLowerCase() === wanted)
        : undefined;
    if (!button && !room) {
      const labels = [
        ...BUTTONS[this.page],
        ...(this.page === 'results' ? this.results().map((r) => r.id) : []),
      ];
      return {
        ok: false,
        reason: `there is no [${label}] on this page; clickable: ${labels.join(', ') || 'nothing'}.`,
      };
    }
    this.errors = [];
    if (room) return this.go('room', { room });
    switch (button) {
      case 'Search':
        return this.submitSearch();
      case 'Back to search':
        return this.go('search', { stay: undefined, room: undefined });
      case 'Back to results':
        return this.go('results', { room: undefined });
      case 'Book this room':
      case 'Back to room':
        return this.go(button === 'Book this room' ? 'details' : 'room');
      case 'Continue':
        return this.submitDetails();
      case 'Edit details':
        return this.go('details');
      default:
        return this.confirm();
    }
  }

  private go(page: PageName, change: Partial<Pick<BookingSite, 'stay' | 'room'>> = {}): SiteReply {
    this.page = page;
    if ('stay' in change) this.stay = change.stay;
    if ('room' in change) this.room = change.room;
    return { ok: true };
  }

  private submitSearch(): SiteReply {
    const { town, arrival, nights, guests } = this.search;
    const errors: string[] = [];
    const place = this.inventory.towns.find((t) => t.toLowerCase() === town.toLowerCase());
    const day = parseDate(arrival);
    const n = wholeNumber(nights, 1, 7);
    const g = wholeNumber(guests, 1, 4);
    if (!place) errors.push(`town: choose one of ${this.inventory.towns.join(', ')}`);
    if (day === undefined) errors.push(`arrival: write a date in ${MONTH}, like ${MONTH} 14`);
    if (n === undefined) errors.push('nights: a whole number from 1 to 7');
    if (g === undefined) errors.push('guests: a whole number from 1 to 4');
    if (day !== undefined && n !== undefined && day + n - 1 > MONTH_DAYS) {
      errors.push(
        `nights: every night must be in ${MONTH}; ${n} from ${MONTH} ${day} runs past it`,
      );
    }
    this.errors = errors;
    if (errors.length > 0) return { ok: true };
    return this.go('results', {
      stay: {
        town: place as string,
        arrival: day as number,
        nights: n as number,
        guests: g as number,
      },
    });
  }

  private submitDetails(): SiteReply {
    const { name, phone, breakfast } = this.details;
    const errors: string[] = [];
    if (!/^[a-z][a-z'-]*(\s+[a-z][a-z'-]*)+$/i.test(name)) {
      errors.push("name: write the guest's first and last name");
    }
    if (!/^\d{3}-\d{4}$/.test(phone)) errors.push('phone: write it like 555-0142');
    if (!/^(yes|no)$/i.test(breakfast)) errors.push('breakfast: yes or no');
    this.errors = errors;
    return errors.length > 0 ? { ok: true } : this.go('review');
  }

  private confirm(): SiteReply {
    this.page = 'done';
    return {
      ok: true,
      booking: {
        room: (this.room as Room).id,
        stay: { ...(this.stay as Stay) },
        name: this.details.name,
        phone: this.details.phone,
        breakfast: this.details.breakfast.toLowerCase() === 'yes',
      },
    };
  }
}

/** `May 14` (or `14 May`) → 14; undefined for anything else. */
function parseDate(text: string): number | undefined {
  const match = new RegExp(`^(?:${MONTH}\\s+(\\d{1,2})|(\\d{1,2})\\s+${MONTH})$`, 'i').exec(
    text.trim(),
  );
  const day = Number(match?.[1] ?? match?.[2]);
  return match && day >= 1 && day <= MONTH_DAYS ? day : undefined;
}

function wholeNumber(text: string, min: number, max: number): number | undefined {
  const n = Number(text);
  return /^\d+$/.test(text.trim()) && n >= min && n <= max ? n : undefined;
}
