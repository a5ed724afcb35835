import { describe, expect, it } from 'vitest';
import { carryFields, fieldsOf } from './carried-fields.ts';

describe('carried fields', () => {
  const form = (breakfast: string) =>
    `Guest details, 2 guests\nname: Ada Moss\nbreakfast: ${breakfast}\n[Continue]`;
  const review = (breakfast: string) =>
    `Review your booking\nGuest: Ada Moss, breakfast: ${breakfast}\nTotal: $120\n[Confirm]`;

  it('reads `label: value` fragments, leaving out labels a page shows twice', () => {
    expect(fieldsOf(review('no'))).toEqual(
      new Map([
        ['guest', 'Ada Moss'],
        ['breakfast', 'no'],
        ['total', '$120'],
      ]),
    );
    const hinted = 'nights: (not set)\ntown: Oxby\nhint: towns: Oxby, Dun; nights: 1–7';
    expect(fieldsOf(hinted).has('nights')).toBe(false);
    expect(fieldsOf(hinted).get('town')).toBe('Oxby');
  });

  it("puts this episode's value in a field the real page repeated from its state", () => {
    expect(carryFields(review('no'), form('no'), review('no'), form('yes'))).toBe(review('yes'));
  });

  it('leaves a field the real step changed, and a field this episode does not show', () => {
    // The real step set breakfast itself: its new value is the step's doing, not a repeat.
    expect(carryFields(review('yes'), form('no'), review('yes'), form('no'))).toBe(review('yes'));
    const bare = 'Guest details, 2 guests\nname: Ada Moss\n[Continue]';
    expect(carryFields(review('no'), form('no'), review('no'), bare)).toBe(review('no'));
  });
});
