import { describe, expect, it } from 'vitest';
import type { Decision } from './feature-set.ts';
import { actionFeatures, DEFAULT_FEATURE_SIZES, decisionView } from './features.ts';
import { itemEvidence, openedItem } from './item-evidence.ts';

const page = (text: string, actions: string[] = []) => ({ text, instruction: '', actions });
const results = page('[Back to Search]\nPage 1 (Total results: 2)\n[B0AAAAAAAA]\nKettle\n$10.00');
const item = (title: string) =>
  page(`[Back to Search]\n[< Prev]\ncolor [black][white]\n${title}\nPrice: $10.00\n[Buy Now]`);
const features = page('[Back to Search]\n[< Prev]\nBPA free body\nKeeps water hot');

describe('item evidence', () => {
  it('knows which result an action opens', () => {
    expect(openedItem('click[B0AAAAAAAA]')).toBe('b0aaaaaaaa');
    expect(openedItem('click[Buy Now]')).toBeUndefined();
    expect(openedItem('click[B0AAAA]')).toBeUndefined();
  });

  it('collects the open item’s pages, details read, and the items left', () => {
    const history = [
      'search[kettle]',
      'click[B0AAAAAAAA]',
      'click[< Prev]',
      'click[B0BBBBBBBB]',
      'click[Features]',
      'click[< Prev]',
    ];
    const replies = [
      results,
      item('Glass Kettle'),
      results,
      item('Steel Kettle'),
      features,
      item('Steel Kettle'),
    ];
    const evidence = itemEvidence(history, replies);
    expect(evidence.current).toBe('b0bbbbbbbb');
    expect(evidence.details).toBe(true);
    expect(evidence.seen).toContain('BPA free body');
    expect(evidence.seen).not.toContain('Glass Kettle');
    expect([...evidence.left]).toEqual(['b0aaaaaaaa']);
  });

  it('ends the open item on a results or search page', () => {
    const evidence = itemEvidence(
      ['search[kettle]', 'click[B0AAAAAAAA]', 'click[Back to Search]'],
      [results, item('Glass Kettle'), page('WebShop\nInstruction:\nbuy a kettle\n[Search]')],
    );
    expect(evidence.current).toBeUndefined();
    expect(evidence.seen).toBe('');
    expect(evidence.left.has('b0aaaaaaaa')).toBe(true);
  });
});

describe('item evidence features', () => {
  const sizes = DEFAULT_FEATURE_SIZES;
  const scalar = (decision: Decision, action: string, i: number) => {
    const view = decisionView(decision, decision.observation.actions ?? [action]);
    return actionFeatures(decision, action, sizes, view)[sizes.actionBuckets + i] as number;
  };
  const instruction = 'i want a bpa free electric kettle in white color';
  const onItem = (title: string, read: boolean): Decision => {
    const shown = { ...item(title), instruction };
    const history = ['search[kettle]', 'click[B0AAAAAAAA]'];
    const observations = [{ ...results, instruction }, shown];
    if (read) {
      history.push('click[Features]', 'click[< Prev]');
      observations.push({ ...features, instruction }, shown);
    }
    return {
      history,
      observations,
      observation: {
        ...shown,
        actions: ['click[< Prev]', 'click[Features]', 'click[white]', 'click[Buy Now]'],
      },
    };
  };

  it('Buy Now sees how much of the instruction the item’s pages showed', () => {
    // [33] word coverage of the item's pages, [34] word pairs, [35] details read
    const plain = onItem('Glass Kettle', false);
    const fitting = onItem('BPA Free Electric Kettle', false);
    expect(scalar(fitting, 'click[Buy Now]', 33)).toBeGreaterThan(
      scalar(plain, 'click[Buy Now]', 33),
    );
    expect(scalar(fitting, 'click[Buy Now]', 34)).toBeGreaterThan(0);
    expect(scalar(plain, 'click[Buy Now]', 35)).toBe(0);
    const read = onItem('Glass Kettle', true);
    expect(scalar(read, 'click[Buy Now]', 35)).toBe(1);
    // the features page named "bpa free", which the title did not
    expect(scalar(read, 'click[Buy Now]', 33)).toBeGreaterThan(scalar(plain, 'click[Buy Now]', 33));
    expect(scalar(read, 'click[Features]', 37)).toBe(1);
    expect(scalar(plain, 'click[Features]', 37)).toBe(-1);
    // an option click carries none of it
    expect(scalar(read, 'click[white]', 33)).toBe(0);
  });

  it('marks a result opened and left before', () => {
    const decision: Decision = {
      history: ['search[kettle]', 'click[B0AAAAAAAA]', 'click[< Prev]'],
      observations: [results, item('Glass Kettle'), results],
      observation: {
        ...results,
        instruction,
        actions: ['click[B0AAAAAAAA]', 'click[B0BBBBBBBB]'],
      },
    };
    expect(scalar(decision, 'click[B0AAAAAAAA]', 32)).toBe(1);
    expect(scalar(decision, 'click[B0BBBBBBBB]', 32)).toBe(0);
    expect(scalar(decision, 'click[B0BBBBBBBB]', 36)).toBeCloseTo(1 / 3);
  });
});
