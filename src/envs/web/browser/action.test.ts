import { describe, expect, it } from 'vitest';
import { parseWebAction, type WebAction } from './action.ts';

/**
 * How WebArena reads each string: what its agent extracts (`extract_action`: the first ``` block)
 * and `create_id_based_action` makes of it, written by hand from its rules, in our action type.
 * `error`: an ActionParsingError; `crash`: another exception. A row whose result differs from
 * WebArena's says why (`ours`, `why`); every such departure is listed in docs/web-observation.md.
 */
interface Row {
  text: string;
  webarena: WebAction | 'error' | 'crash';
  ours?: WebAction | 'error';
  why?: string;
}

const click = (id: number): WebAction => ({ kind: 'click', id });
const type = (id: number, text: string, pressEnter: boolean): WebAction => ({
  kind: 'type',
  id,
  text,
  pressEnter,
});
const press = (keys: string): WebAction => ({ kind: 'press', keys });
const scroll = (direction: 'up' | 'down'): WebAction => ({ kind: 'scroll', direction });
const stop = (answer: string): WebAction => ({ kind: 'stop', answer });

const TABLE: Row[] = [
  { text: 'click [12]', webarena: click(12) },
  { text: 'click[12]', webarena: click(12) },
  { text: 'click  [12]', webarena: 'error' },
  { text: "click [12] where [12] is link 'Home'", webarena: click(12) },
  { text: 'click [12] and then click [13]', webarena: click(12) },
  { text: 'click [9].', webarena: click(9) },
  { text: 'Click [12]', webarena: 'error' },
  { text: 'click [abc]', webarena: 'error' },
  { text: 'click', webarena: 'error' },
  { text: 'hover [3]', webarena: { kind: 'hover', id: 3 } },
  { text: 'type [15] [blue kettle] [0]', webarena: type(15, 'blue kettle', false) },
  { text: 'type [7] [hello]', webarena: type(7, 'hello', true) },
  { text: 'type [7] [a [b] c] [0]', webarena: type(7, 'a [b] c', false) },
  {
    text: 'type [164] [restaurants near CMU] [1]',
    webarena: type(164, 'restaurants near CMU', true),
  },
  { text: 'type [1] [x] [2]', webarena: type(1, 'x] [2', true) },
  { text: 'type [12] [abc] [0] where [12] is textbox', webarena: type(12, 'abc', false) },
  { text: "type [12] [abc] where [12] is textbox 'Search'", webarena: 'error' },
  { text: 'type [14] [line one\nline two] [0]', webarena: 'error' },
  { text: 'type [4]', webarena: 'error' },
  {
    text: 'type [14] [] [0]',
    webarena: 'error',
    ours: type(14, '', false),
    why: 'our type replaces the content, so empty text is how a field is cleared',
  },
  { text: 'press [Enter]', webarena: press('Enter') },
  { text: 'press [enter]', webarena: press('Enter') },
  { text: 'press [Control++]', webarena: press('Control++') },
  { text: 'press [Meta+Shift+K]', webarena: press('Meta+Shift+K') },
  {
    text: 'press [Ctrl+a]',
    webarena: press('Ctrl+a'),
    ours: press('Control+a'),
    why: "WebArena's Playwright refuses Ctrl when it runs; WebArena's own prompt suggests Ctrl+v",
  },
  {
    text: 'press [Hyper]',
    webarena: press('Hyper'),
    ours: 'error',
    why: "not a key: refused before it runs; WebArena's step fails when Playwright refuses it",
  },
  { text: 'scroll [down]', webarena: scroll('down') },
  { text: 'scroll up', webarena: scroll('up') },
  { text: 'scroll [downward]', webarena: scroll('down') },
  { text: 'scroll [Down]', webarena: 'error' },
  { text: 'scroll [left]', webarena: 'error' },
  { text: 'new_tab', webarena: { kind: 'new_tab' } },
  { text: 'tab_focus [1]', webarena: { kind: 'tab_focus', index: 1 } },
  { text: 'tab_focus [x]', webarena: 'error' },
  { text: 'close_tab', webarena: { kind: 'close_tab' } },
  {
    text: 'goto [http://127.0.0.1:8080/f/cooking]',
    webarena: { kind: 'goto', url: 'http://127.0.0.1:8080/f/cooking' },
  },
  { text: 'goto [http://x/a] [b]', webarena: { kind: 'goto', url: 'http://x/a] [b' } },
  { text: 'go_back', webarena: { kind: 'go_back' } },
  { text: 'go_back [3]', webarena: { kind: 'go_back' } },
  { text: 'go_back.', webarena: 'error' },
  { text: 'go_forward', webarena: { kind: 'go_forward' } },
  { text: 'stop [$24.99]', webarena: stop('$24.99') },
  { text: 'stop', webarena: stop('') },
  { text: 'stop []', webarena: stop('') },
  { text: 'stop [ N/A ]', webarena: stop(' N/A ') },
  { text: 'stop [The answer is [42]]', webarena: stop('The answer is [42]') },
  { text: 'stop [a\nb]', webarena: stop('') },
  { text: '```click [12]```', webarena: click(12) },
  { text: '```\nclick [12]\n```', webarena: click(12) },
  { text: '```python\nclick [12]\n```', webarena: 'error' },
  { text: '`click [12]`', webarena: 'error' },
  {
    text: 'Let\'s think step-by-step. The link "Forums" has id [5], not ```click [3]```. In summary, the next action I will perform is ```click [5]```.',
    webarena: click(3),
  },
  {
    text: "Let's think step-by-step. Its price is $279.49. In summary, the next action I will perform is ```stop [$279.49]```",
    webarena: stop('$279.49'),
  },
  { text: 'frobnicate[the moon]', webarena: 'error' },
  {
    text: '',
    webarena: 'crash',
    ours: 'error',
    why: 'WebArena raises an IndexError (no verb); refused here like any other non-action',
  },
];

describe("parseWebAction against WebArena's parsing, string by string", () => {
  for (const row of TABLE) {
    it(JSON.stringify(row.text), () => {
      const wanted = row.ours ?? row.webarena;
      const parsed = parseWebAction(row.text);
      if (wanted === 'error' || wanted === 'crash') {
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.reason).toContain('click [id]');
      } else {
        expect(parsed).toEqual({ ok: true, action: wanted });
      }
    });
  }

  it('departs from WebArena only where a row says why', () => {
    const departures = TABLE.filter((row) => row.ours !== undefined);
    for (const row of departures) expect(row.why, row.text).toBeTruthy();
    expect(TABLE.length - departures.length).toBe(51);
    expect(departures).toHaveLength(4);
  });
});

describe('parseWebAction says what is wrong', () => {
  it('a verb in the wrong case or in backticks gets a hint', () => {
    const upper = parseWebAction('Click [12]');
    expect(!upper.ok && upper.reason).toContain('verbs are lower case: click');
    const ticked = parseWebAction('`click [12]`');
    expect(!ticked.ok && ticked.reason).toContain('in a ``` fence');
  });

  it('type with a line break in its text is refused as WebArena refuses it', () => {
    const parsed = parseWebAction('type [3] [one\ntwo] [0]');
    expect(!parsed.ok && parsed.reason).toContain('on one line');
  });

  it('normalises key names and aliases', () => {
    expect(parseWebAction('press [ESC]')).toEqual({ ok: true, action: press('Escape') });
    expect(parseWebAction('press [cmd+shift+Minus]')).toEqual({
      ok: true,
      action: press('Control+Shift+Minus'),
    });
  });
});
