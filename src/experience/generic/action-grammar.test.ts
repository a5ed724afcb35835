import { describe, expect, it } from 'vitest';
import { ActionGrammar, fill, isListed } from './action-grammar.ts';

describe('ActionGrammar', () => {
  const grammar = ActionGrammar.learn([
    'put cup in box',
    'put red cup in wooden box',
    'put map in chest',
    'go north',
    'go south',
  ]);

  it('reads bracketed, keyed and JSON-call actions as templates with slots', () => {
    expect(grammar.parse('lookup[X-2217]')).toEqual({
      template: 'lookup[<1>]',
      values: ['X-2217'],
    });
    expect(grammar.parse('type [12] [hello world] [1]')).toEqual({
      template: 'type [<1>] [<2>] [<3>]',
      values: ['12', 'hello world', '1'],
    });
    expect(grammar.parse('set[name=Ann Lee]')).toEqual({
      template: 'set[name=<1>]',
      values: ['Ann Lee'],
    });
    expect(grammar.parse('lend({"book": "B-1", "days": 7})')).toEqual({
      template: 'lend({"book":<1>,"days":<2>})',
      values: ['B-1', '7'],
    });
  });

  it('learns the connectors of plain-word actions from the buffer', () => {
    expect(grammar.parse('put red cup in wooden box')).toEqual({
      template: 'put <1> in <2>',
      values: ['red cup', 'wooden box'],
    });
    expect(grammar.parse('go east')).toEqual({ template: 'go <1>', values: ['east'] });
    expect(grammar.parse('look')).toEqual({ template: 'look', values: [] });
  });

  it('fills a template back and tells listed actions, templates with free text included', () => {
    const { template, values } = grammar.parse('set[name=Ann Lee]');
    expect(fill(template, values)).toBe('set[name=Ann Lee]');
    expect(isListed(['find[<name>]', 'done'], 'find[Ann Lee]')).toBe(true);
    expect(isListed(['find[<name>]', 'done'], 'find[]')).toBe(false);
    expect(isListed(['find[<name>]', 'done'], 'lookup[X-1]')).toBe(false);
  });
});
