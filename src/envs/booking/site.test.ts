import { describe, expect, it } from 'vitest';
import { type BookingGoal, bestRoom, bookingReward } from './goals.ts';
import type { Inventory } from './inventory.ts';
import { pageActions, renderPage } from './pages.ts';
import { type Booking, BookingSite } from './site.ts';

const room = (
  id: string,
  lodge: string,
  kind: string,
  sleeps: number,
  features: string[],
  rate: number,
  booked: number[] = [],
) => ({
  id,
  lodge,
  town: 'Marrowby',
  kind,
  sleeps,
  features,
  rate,
  booked,
});

const INVENTORY: Inventory = {
  towns: ['Marrowby', 'Stanage', 'Oldhithe'],
  rooms: [
    room('R-10', 'Gull House', 'double room', 2, ['balcony'], 80),
    room('R-11', 'Gull House', 'single room', 1, ['sea view'], 60),
    room('R-12', 'Heron Inn', 'twin room', 2, ['sea view', 'bathtub'], 95),
    room('R-13', 'Heron Inn', 'family suite', 4, ['sea view'], 150),
    room('R-15', 'Heron Inn', 'double room', 2, ['sea view'], 70, [14]),
    { ...room('R-14', 'Flint Lodge', 'double room', 2, ['sea view'], 70), town: 'Stanage' },
  ],
};

const GOAL: BookingGoal = {
  stay: { town: 'Marrowby', arrival: 13, nights: 2, guests: 2 },
  feature: 'sea view',
  name: 'Ida Morrow',
  phone: '555-0142',
  breakfast: true,
};

const run = (site: BookingSite, ...actions: string[]) => {
  let last: ReturnType<BookingSite['execute']> = { ok: true };
  for (const action of actions) {
    last = site.execute(action);
    expect(last.ok, action).toBe(true);
  }
  return last;
};

const searched = () => {
  const site = new BookingSite(INVENTORY);
  run(
    site,
    'set[town=Marrowby]',
    'set[arrival=May 13]',
    'set[nights=2]',
    'set[guests=2]',
    'click[Search]',
  );
  return site;
};

describe('BookingSite', () => {
  it('checks the search form on submit and shows what is wrong as the page', () => {
    const site = new BookingSite(INVENTORY);
    run(site, 'click[Search]');
    expect(site.page).toBe('search');
    expect(
      renderPage(site)
        .split('\n')
        .filter((l) => l.startsWith('! Error:')),
    ).toHaveLength(4);
    run(
      site,
      'set[town=Marrowby]',
      'set[arrival=the 30th]',
      'set[nights=9]',
      'set[guests=2]',
      'click[Search]',
    );
    expect(site.errors).toEqual([
      'arrival: write a date in May, like May 14',
      'nights: a whole number from 1 to 7',
    ]);
    run(site, 'set[arrival=30 May]', 'set[nights=3]', 'click[Search]');
    expect(site.errors).toEqual(['nights: every night must be in May; 3 from May 30 runs past it']);
    run(site, 'set[nights=2]', 'click[Search]');
    expect(site.page).toBe('results');
  });

  it('lists the rooms free for the whole stay that sleep the guests, with totals but no features', () => {
    const site = searched();
    expect(renderPage(site)).toBe(
      [
        'Stays in Marrowby, May 13 – May 15 (2 nights), 2 guests: 3 available',
        '[R-10] Gull House · double room · $160 total',
        '[R-12] Heron Inn · twin room · $190 total',
        '[R-13] Heron Inn · family suite · $300 total',
        '[Back to search]',
      ].join('\n'),
    );
    expect(pageActions(site)).toEqual([
      'click[R-10]',
      'click[R-12]',
      'click[R-13]',
      'click[Back to search]',
    ]);
    run(site, 'click[R-12]');
    expect(renderPage(site)).toContain('Sleeps 2 · Features: sea view, bathtub');
  });

  it('refuses what the page does not offer, changing nothing', () => {
    const site = searched();
    for (const action of [
      'set[name=Ida]',
      'click[R-11]',
      'click[Confirm booking]',
      'book R-12',
      'set[]',
    ]) {
      expect(site.execute(action)).toMatchObject({ ok: false });
    }
    expect(site.page).toBe('results');
  });

  it('checks the guest details, reviews and confirms a booking', () => {
    const site = searched();
    run(
      site,
      'click[R-12]',
      'click[Book this room]',
      'set[name=Ida]',
      'set[phone=5550142]',
      'click[Continue]',
    );
    expect(site.errors).toEqual([
      "name: write the guest's first and last name",
      'phone: write it like 555-0142',
    ]);
    run(
      site,
      'set[name=Ida Morrow]',
      'set[phone=555-0142]',
      'set[breakfast=yes]',
      'click[Continue]',
    );
    expect(renderPage(site)).toContain('Total: $238');
    const reply = run(site, 'click[Confirm booking]');
    expect(reply).toEqual({
      ok: true,
      booking: {
        room: 'R-12',
        stay: GOAL.stay,
        name: 'Ida Morrow',
        phone: '555-0142',
        breakfast: true,
      },
    });
  });
});

describe('bookingReward', () => {
  const right: Booking = {
    room: 'R-12',
    stay: GOAL.stay,
    name: 'ida  morrow',
    phone: '555-0142',
    breakfast: true,
  };

  it('names the cheapest free room with what is asked, from the inventory', () => {
    expect(bestRoom(GOAL, INVENTORY)?.id).toBe('R-12');
    expect(bestRoom({ ...GOAL, feature: undefined, kind: 'double room' }, INVENTORY)?.id).toBe(
      'R-10',
    );
  });

  it('is 1 only for exactly the booking asked for', () => {
    expect(bookingReward(GOAL, INVENTORY, right)).toBe(1);
    expect(bookingReward(GOAL, INVENTORY, { ...right, room: 'R-10' })).toBe(0);
    expect(bookingReward(GOAL, INVENTORY, { ...right, phone: '555-0124' })).toBe(0);
    expect(bookingReward(GOAL, INVENTORY, { ...right, breakfast: false })).toBe(0);
    expect(bookingReward(GOAL, INVENTORY, { ...right, stay: { ...GOAL.stay, nights: 3 } })).toBe(0);
  });
});
