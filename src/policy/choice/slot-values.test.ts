import { describe, expect, it } from 'vitest';
import { countedValues, instructionEntities, questionOf, slotValues } from './slot-values.ts';

const ticket =
  'Lena Quill here, from Durnford. What is the status of my order with the brass desk lamp?';
const obs = (value: unknown) => ({ text: JSON.stringify(value), instruction: ticket });

describe('slot values', () => {
  it("names an instruction's entities: names, places, dates, numbers, ids — not its openers", () => {
    expect(instructionEntities(ticket)).toEqual(['Lena Quill', 'Durnford']);
    const booking =
      'I need a room in Marrowby for 2 guests, from May 7. Book it for Teodor Ibarra, phone 555-8398.';
    expect(instructionEntities(booking)).toEqual(
      expect.arrayContaining(['Marrowby', 'May 7', '2', 'Teodor Ibarra', '555-8398']),
    );
    expect(instructionEntities(booking)).not.toContain('I');
    expect(questionOf(ticket)).toBe('What is the status of my order with the brass desk lamp?');
  });

  it('counts the records that hold a word of the question', () => {
    const question = 'Hi, I am Ana Ruiz. How many of my orders have shipped?';
    const orders = ['shipped', 'delivered', 'shipped'].map((status, i) => ({
      text: JSON.stringify({ id: `O-${i}`, status }),
      instruction: question,
    }));
    // Reading an order twice does not count it twice.
    const counts = countedValues(question, [...orders, orders[0] as (typeof orders)[0]]);
    expect(counts.get('2')).toEqual(['shipped']);
    // Words no record holds count zero: a question whose answer is none has a candidate too.
    expect(counts.get('0')).toEqual(expect.arrayContaining(['many', 'orders']));
    expect(countedValues(question, orders.slice(1, 2)).get('0')).toContain('shipped');
  });

  it('proposes the instruction’s values, then the current result’s, then earlier ones, at most max', () => {
    const found = obs({ customers: [{ id: 'C-1', name: 'Lena Quill', town: 'Durnford' }] });
    const order = obs({ id: 'O-7', status: 'pending', total: '94.50' });
    const values = slotValues(order, [found], 40);
    expect(values[0]).toEqual({ value: 'Lena Quill', source: 'instruction' });
    expect(values).toContainEqual({ value: 'pending', source: 'observation' });
    expect(values).toContainEqual({ value: 'C-1', source: 'observation' });
    const at = (v: string) => values.findIndex((x) => x.value === v);
    expect(at('pending')).toBeLessThan(at('C-1'));
    // `Lena Quill` and `Durnford` once each, though the instruction and a result both show them.
    expect(values.filter((v) => v.value.toLowerCase() === 'durnford')).toHaveLength(1);
    expect(slotValues(order, [found], 3)).toHaveLength(3);
  });
});
