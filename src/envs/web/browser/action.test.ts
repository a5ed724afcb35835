import { describe, expect, it } from 'vitest';
import { parseWebAction, type WebAction } from './action.ts';

const ok = (text: string): WebAction => {
  const parsed = parseWebAction(text);
  if (!parsed.ok) throw new Error(`did not parse: ${parsed.reason}`);
  return parsed.action;
};

describe('parseWebAction', () => {
  it('parses every WebArena action kind', () => {
    expect(ok('click [12]')).toEqual({ kind: 'click', id: 12 });
    expect(ok('hover [3]')).toEqual({ kind: 'hover', id: 3 });
    expect(ok('type [15] [blue kettle] [0]')).toEqual({
      kind: 'type',
      id: 15,
      text: 'blue kettle',
      pressEnter: false,
    });
    expect(ok('press [Ctrl+a]')).toEqual({ kind: 'press', keys: 'Control+a' });
    expect(ok('scroll [down]')).toEqual({ kind: 'scroll', direction: 'down' });
    expect(ok('scroll up')).toEqual({ kind: 'scroll', direction: 'up' });
    expect(ok('new_tab')).toEqual({ kind: 'new_tab' });
    expect(ok('tab_focus [1]')).toEqual({ kind: 'tab_focus', index: 1 });
    expect(ok('close_tab')).toEqual({ kind: 'close_tab' });
    expect(ok('goto [http://127.0.0.1:8080/f/cooking]')).toEqual({
      kind: 'goto',
      url: 'http://127.0.0.1:8080/f/cooking',
    });
    expect(ok('go_back')).toEqual({ kind: 'go_back' });
    expect(ok('go_forward')).toEqual({ kind: 'go_forward' });
    expect(ok('stop [$24.99]')).toEqual({ kind: 'stop', answer: '$24.99' });
    expect(ok('stop')).toEqual({ kind: 'stop', answer: '' });
  });

  it('type presses Enter unless told not to, and keeps brackets inside the text', () => {
    expect(ok('type [7] [hello]')).toMatchObject({ text: 'hello', pressEnter: true });
    expect(ok('type [7] [hello] [1]')).toMatchObject({ text: 'hello', pressEnter: true });
    expect(ok('type [7] [a [b] c] [0]')).toMatchObject({ text: 'a [b] c', pressEnter: false });
  });

  it("accepts WebArena's answer forms: backticks, fences and the chain-of-thought phrase", () => {
    expect(ok('`click [12]`')).toEqual({ kind: 'click', id: 12 });
    expect(ok('```click [12]```')).toEqual({ kind: 'click', id: 12 });
    expect(
      ok(
        'Let\'s think step-by-step. The link "Forums" has id [5], not ```click [3]```. In summary, the next action I will perform is ```click [5]```.',
      ),
    ).toEqual({ kind: 'click', id: 5 });
    expect(ok('  Click [9].  ')).toEqual({ kind: 'click', id: 9 });
  });

  it('rejects what is not an action, saying what to write', () => {
    for (const bad of [
      '',
      'frobnicate[the moon]',
      'click [abc]',
      'click',
      'type [4]',
      'press [Hyper]',
      'tab_focus [x]',
      'go_back [3]',
      'scroll [left]',
    ]) {
      const parsed = parseWebAction(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toContain('click [id]');
    }
  });

  it('normalises key names', () => {
    expect(ok('press [enter]')).toEqual({ kind: 'press', keys: 'Enter' });
    expect(ok('press [Meta+Shift+K]')).toEqual({ kind: 'press', keys: 'Meta+Shift+k' });
    expect(ok('press [Control++]')).toEqual({ kind: 'press', keys: 'Control++' });
  });
});
