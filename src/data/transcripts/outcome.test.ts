import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.ts';
import { outcomeFromFields, readOutcomes } from './outcome.ts';

describe('outcomes', () => {
  it('reads every documented form, and none from fields that give none', () => {
    const reward = (fields: Record<string, unknown>) => outcomeFromFields(fields, 'x')?.reward;
    expect(reward({ reward: -0.5 })).toBe(-0.5);
    expect(reward({ success: false })).toBe(0);
    for (const word of ['success', 'Succeeded', 'solved', 'resolved', 'pass', 'PASSED']) {
      expect(reward({ outcome: word })).toBe(1);
    }
    for (const word of ['failure', 'failed', 'fail', 'unsolved', 'unresolved']) {
      expect(reward({ outcome: word })).toBe(0);
    }
    expect(reward({ outcome: 0.75 })).toBe(0.75);
    expect(reward({ note: 'no outcome here' })).toBeUndefined();
  });

  it('reads an outcomes file keyed by id, numbers and strings alike', () => {
    const outcomes = readOutcomes(
      '{"id": "c-1", "reward": 1}\n\n{"id": 7, "outcome": "failure", "note": "kept out"}\n',
      'o.jsonl',
    );
    expect([...outcomes]).toEqual([
      ['c-1', { reward: 1, source: 'o.jsonl:1' }],
      ['7', { reward: 0, source: 'o.jsonl:3' }],
    ]);
  });

  it.each([
    ['bad JSON', '{"id": "a", ', /^o\.jsonl:2: not valid JSON/],
    [
      'no id',
      '{"reward": 1}',
      /^o\.jsonl:2: id: expected the conversation's id or the trace's traceId, got nothing/,
    ],
    ['no outcome', '{"id": "b"}', /^o\.jsonl:2: no outcome for "b": add "reward": 1/],
    [
      'a bad reward',
      '{"id": "b", "reward": "high"}',
      /^o\.jsonl:2: the outcome "reward": expected a finite number, got "high"/,
    ],
    [
      'an id twice',
      '{"id": "a", "reward": 0}',
      /^o\.jsonl:2: id "a" already has an outcome on line 1/,
    ],
  ])('refuses the whole file for %s, naming the line', (_, line, reason) => {
    const read = () => readOutcomes(`{"id": "a", "reward": 1}\n${line}\n`, 'o.jsonl');
    expect(read).toThrow(DataFormatError);
    expect(read).toThrow(reason);
  });
});
