import { describe, expect, it } from 'vitest';
import { alignSteps, sharedActions } from './step-alignment.ts';
import { diffLines } from './text-diff.ts';

describe('diffLines', () => {
  it('marks lines only the second text has as added and lines only the first has as removed', () => {
    const real = 'Page 1\n[B01]\nRed mug\n$9.99\n[Next >]';
    const synthetic = 'Page 1\n[B01]\nBlue mug\n$9.99\n[B02]\n[Next >]';
    expect(diffLines(real, synthetic)).toEqual([
      { kind: 'same', text: 'Page 1' },
      { kind: 'same', text: '[B01]' },
      { kind: 'removed', text: 'Red mug' },
      { kind: 'added', text: 'Blue mug' },
      { kind: 'same', text: '$9.99' },
      { kind: 'added', text: '[B02]' },
      { kind: 'same', text: '[Next >]' },
    ]);
  });

  it('finds identical texts identical and keeps every line of either', () => {
    expect(diffLines('a\nb', 'a\nb').every((l) => l.kind === 'same')).toBe(true);
    const d = diffLines('x\ny\nz', 'q');
    expect(d.filter((l) => l.kind === 'removed').map((l) => l.text)).toEqual(['x', 'y', 'z']);
    expect(d.filter((l) => l.kind === 'added').map((l) => l.text)).toEqual(['q']);
  });
});

describe('alignSteps', () => {
  it('puts the same actions on one row and pairs the others in order between them', () => {
    const synthetic = ['search[mug]', 'click[B01]', 'click[Buy Now]'];
    const real = ['search[red mug]', 'click[B01]', 'click[red]', 'click[Buy Now]'];
    expect(alignSteps(synthetic, real)).toEqual([
      { a: 0, b: 0, sameAction: false },
      { a: 1, b: 1, sameAction: true },
      { b: 2, sameAction: false },
      { a: 2, b: 3, sameAction: true },
    ]);
    expect(sharedActions(synthetic, real)).toBe(2);
  });
});
