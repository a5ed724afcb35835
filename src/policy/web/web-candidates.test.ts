import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/types.ts';
import { typeValues, webCandidates } from './web-candidates.ts';

const page = (instruction: string): Observation => ({
  instruction,
  text: [
    'Tab 0 (current): Valley Oak Tent — Store Admin',
    'URL: http://store.test/admin/products/99',
    '',
    "[1] RootWebArea 'Valley Oak Tent — Store Admin' focused: True",
    "\t[4] link 'Products' url: http://store.test/admin/products",
    "\t[10] searchbox 'Search products'",
    "\t[13] heading 'Valley Oak Tent'",
    "\t[15] table 'Product summary'",
    "\t\t[17] row ''",
    "\t\t\t[18] rowheader 'SKU'",
    "\t\t\t[19] cell 'OUT-6679'",
    "\t\t[20] row ''",
    "\t\t\t[21] rowheader 'Price'",
    "\t\t\t[22] cell '$56.50'",
    "\t\t[23] row ''",
    "\t\t\t[24] rowheader 'Status'",
    "\t\t\t[25] cell 'Enabled'",
    "\t[30] StaticText '441 points · by lumen_heron · 2024-06-28 · 5 comments'",
    "\t[31] combobox 'Sort' value: Newest",
    "\t\t[32] option 'Newest'",
    "\t\t[33] option 'Top rated'",
  ].join('\n'),
  actions: [
    'click [4]',
    'type [10] [<text>]',
    'type [31] [<text>]',
    'scroll [down]',
    'scroll [up]',
    'go_back',
    'go_forward',
    'new_tab',
    'press [<key_comb>]',
    'goto [<url>]',
    'stop [<answer>]',
  ],
});

describe('webCandidates', () => {
  it('keeps clicks with what they point at, and drops navigation the tasks never need', () => {
    const actions = webCandidates(page('Open the products list')).map((c) => c.action);
    expect(actions).toContain('click [4]');
    expect(actions).toContain('scroll [down]');
    expect(actions).toContain('go_back');
    for (const dropped of ['go_forward', 'new_tab', 'scroll [up]']) {
      expect(actions).not.toContain(dropped);
    }
    expect(actions.some((a) => a.startsWith('press') || a.startsWith('goto'))).toBe(false);
    const click = webCandidates(page('x')).find((c) => c.action === 'click [4]');
    expect(click?.context).toBe('link Products');
  });

  it('types values from the instruction into text fields, and option labels into selects', () => {
    const candidates = webCandidates(page('What is the price of "Valley Oak Tent" (OUT-6679)?'));
    const typed = candidates.map((c) => c.action).filter((a) => a.startsWith('type [10]'));
    expect(typed).toContain('type [10] [Valley Oak Tent] [1]');
    expect(typed).toContain('type [10] [OUT-6679] [1]');
    const select = candidates.map((c) => c.action).filter((a) => a.startsWith('type [31]'));
    expect(select).toEqual(['type [31] [Newest] [1]', 'type [31] [Top rated] [1]']);
  });

  it('proposes answers from the page with their row headers, numbers inside sentences, and no answer', () => {
    const candidates = webCandidates(page('How much does the product OUT-6679 sell for?'));
    const price = candidates.find((c) => c.action === 'stop [$56.50]');
    expect(price?.context).toContain('Price');
    const actions = candidates.map((c) => c.action);
    expect(actions).toContain('stop []');
    expect(actions).toContain('stop [441]');
    expect(actions).toContain('stop [lumen_heron]');
    expect(actions).toContain('stop [2024-06-28]');
    expect(actions).toContain('stop [Newest]');
    // The asked SKU itself is a poor answer: it comes after every text the question lacks.
    expect(actions.indexOf('stop [OUT-6679]')).toBeGreaterThan(actions.indexOf('stop [$56.50]'));
  });

  it('puts the two named choices of an either-or question first', () => {
    const actions = webCandidates(page('Is Valley Oak Tent enabled or disabled?')).map(
      (c) => c.action,
    );
    const stops = actions.filter((a) => a.startsWith('stop ['));
    expect(stops[0]).toBe('stop []');
    expect(stops[1]).toBe('stop [Enabled]');
  });

  it('caps the proposals', () => {
    const few = webCandidates(page('x'), { answers: 3, typeValues: 1 });
    expect(few.filter((c) => c.action.startsWith('stop [')).length).toBe(4);
  });
});

describe('typeValues', () => {
  it('finds quoted titles, identifiers, names, forums and amounts', () => {
    expect(typeValues('Who submitted the post "Question about swatch and wool blend"?')).toContain(
      'Question about swatch and wool blend',
    );
    expect(typeValues('How much karma does quill_tapir have?')).toEqual(['quill_tapir']);
    expect(typeValues('Check the current status of order 000000127.')).toContain('000000127');
    expect(typeValues("Find Oscar Okafor's email.")).toContain('Oscar Okafor');
    expect(typeValues('Is Willow Stoneware Trowel enabled or disabled?')).toContain(
      'Willow Stoneware Trowel',
    );
    expect(typeValues('Post in f/hiking')).toContain('hiking');
    expect(typeValues('Set the price to $45.00')).toContain('45.00');
  });
});
