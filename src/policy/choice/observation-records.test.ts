import { describe, expect, it } from 'vitest';
import { holdsPhrase, recordsOf } from './observation-records.ts';

describe('observation records', () => {
  it('reads a JSON tool result as its objects, with fields, list places and nested text', () => {
    const customer = JSON.stringify({
      id: 'C-5795',
      name: 'Lena Quill',
      town: 'Durnford',
      orders: ['O-2349', 'O-9658'],
    });
    const [record] = recordsOf(customer);
    expect(record?.fields).toContainEqual({ key: 'town', value: 'Durnford', rank: 0 });
    expect(record?.fields).toContainEqual({ key: 'orders', value: 'O-9658', rank: 1 });

    const order = JSON.stringify({
      id: 'O-3971',
      status: 'pending',
      items: [{ product: 'brass desk lamp', qty: 1 }],
      total: '94.50',
    });
    const records = recordsOf(order);
    expect(records).toHaveLength(2);
    // The order's text holds its items' values: a lookup by id sees what the order holds.
    expect(records[0]?.text).toContain('brass desk lamp');
    expect(records[0]?.fields).toContainEqual({ key: 'status', value: 'pending', rank: 0 });
    expect(records[1]?.fields).toContainEqual({
      key: 'product',
      value: 'brass desk lamp',
      rank: 0,
    });
  });

  it('reads a text page as clauses with labels, named values, numbers and names', () => {
    const page = [
      'Stays in Marrowby: 2 available',
      '[R-35] Willow Lodge · double room · $204 total',
      '[R-18] Willow Lodge · single room · $150 total',
      'Exits: south through the red door (copper lock, locked); north to the hall.',
    ].join('\n');
    const records = recordsOf(page);
    expect(records.map((r) => r.text)).toContain('north to the hall.');
    const second = records.find((r) => r.text.startsWith('[r-18]'));
    expect(second?.fields).toContainEqual({ key: '', value: 'R-18', rank: 1 });
    expect(second?.fields.map((f) => f.value)).toEqual(
      expect.arrayContaining(['Willow Lodge', '$150']),
    );
    const stays = records[0]?.fields.find((f) => f.value === 'Marrowby');
    expect(stays?.key).toBe('in');
  });

  it('finds phrases as whole words only', () => {
    expect(holdsPhrase('order o-2217 is pending', 'o-2217')).toBe(true);
    expect(holdsPhrase('order o-22170 is pending', 'o-2217')).toBe(false);
    expect(holdsPhrase('the pewter key', 'key')).toBe(true);
    expect(holdsPhrase('the keyring', 'key')).toBe(false);
  });
});
