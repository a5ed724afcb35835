import { type Room, roomTotal, type Stay } from './inventory.ts';
import { type BookingSite, BUTTONS, DETAIL_FIELDS, SEARCH_FIELDS } from './site.ts';
import { BREAKFAST_PRICE, MONTH } from './words.ts';

/** The current page as text: a title, errors if the last submit had any, the page, its buttons. */
export function renderPage(site: BookingSite): string {
  const lines = [...body(site)];
  if (site.errors.length > 0) lines.splice(1, 0, ...site.errors.map((e) => `! Error: ${e}`));
  const buttons = BUTTONS[site.page].map((b) => `[${b}]`).join(' ');
  return buttons ? `${lines.join('\n')}\n${buttons}` : lines.join('\n');
}

/** The admissible actions of the current page: its fields (free text as templates) and buttons. */
export function pageActions(site: BookingSite): string[] {
  const clicks = [
    ...(site.page === 'results' ? site.results().map((r) => r.id) : []),
    ...BUTTONS[site.page],
  ].map((label) => `click[${label}]`);
  if (site.page === 'search') {
    return [
      ...site.inventory.towns.map((t) => `set[town=${t}]`),
      'set[arrival=<date>]',
      ...[1, 2, 3, 4, 5, 6, 7].map((n) => `set[nights=${n}]`),
      ...[1, 2, 3, 4].map((n) => `set[guests=${n}]`),
      ...clicks,
    ];
  }
  if (site.page === 'details') {
    return [
      'set[name=<full name>]',
      'set[phone=<phone>]',
      'set[breakfast=yes]',
      'set[breakfast=no]',
      ...clicks,
    ];
  }
  return clicks;
}

/** `May 14 – May 17 (3 nights), 2 guests`. */
function stayLine(stay: Stay): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const leave = stay.arrival + stay.nights;
  const departure = leave > 31 ? `June ${leave - 31}` : `${MONTH} ${leave}`;
  return `${MONTH} ${stay.arrival} – ${departure} (${plural(stay.nights, 'night')}), ${plural(stay.guests, 'guest')}`;
}

function body(site: BookingSite): string[] {
  const stay = site.stay as Stay;
  const room = site.room as Room;
  switch (site.page) {
    case 'search':
      return [
        'Find a stay',
        ...SEARCH_FIELDS.map((f) => `${f}: ${site.search[f] || '(not set)'}`),
        `towns: ${site.inventory.towns.join(', ')}; arrival: a date in ${MONTH}; nights: 1–7; guests: 1–4`,
      ];
    case 'results': {
      const rooms = site.results();
      return [
        `Stays in ${stay.town}, ${stayLine(stay)}: ${rooms.length} available`,
        ...(rooms.length > 0
          ? rooms.map((r) => `[${r.id}] ${r.lodge} · ${r.kind} · $${roomTotal(r, stay)} total`)
          : ['No rooms are free for the whole stay.']),
      ];
    }
    case 'room':
      return [
        `${room.lodge} — ${room.kind} (${room.id})`,
        `Sleeps ${room.sleeps} · Features: ${room.features.join(', ')}`,
        `${stayLine(stay)}: $${roomTotal(room, stay)} total`,
      ];
    case 'details':
      return [
        `Guest details for ${room.lodge} — ${room.kind}, ${stayLine(stay)}`,
        ...DETAIL_FIELDS.map((f) => `${f}: ${site.details[f] || '(not set)'}`),
        `breakfast costs $${BREAKFAST_PRICE} per guest per night`,
      ];
    case 'review': {
      const breakfast = site.details.breakfast.toLowerCase() === 'yes';
      const extra = breakfast ? BREAKFAST_PRICE * stay.guests * stay.nights : 0;
      return [
        'Review your booking',
        `${room.lodge} — ${room.kind} (${room.id}), ${stay.town}`,
        stayLine(stay),
        `Guest: ${site.details.name}, phone ${site.details.phone}, breakfast: ${breakfast ? 'yes' : 'no'}`,
        `Total: $${roomTotal(room, stay) + extra}`,
      ];
    }
    case 'done':
      return [`Booking confirmed: ${room.lodge} — ${room.kind}, ${stayLine(stay)}.`];
  }
}
