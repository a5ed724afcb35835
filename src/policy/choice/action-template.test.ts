import { describe, expect, it } from 'vitest';
import { parseAction, placeholdersOf } from './action-template.ts';

describe('action templates', () => {
  it('reads a tool call, a field setter and a web action as templates with slots', () => {
    expect(parseAction('get_order[O-2217]')).toEqual({
      verb: 'get_order',
      template: 'get_order[<>]',
      slots: [{ value: 'O-2217' }],
    });
    expect(parseAction('set[town=Marrowby]')).toEqual({
      verb: 'set',
      template: 'set[town=<>]',
      slots: [{ value: 'Marrowby', field: 'town' }],
    });
    expect(parseAction('type [12] [lumen tapir] [1]').template).toBe('type[<>][<>][<>]');
  });

  it('reads a command: its words between the verb and the connectives are slots', () => {
    expect(parseAction('unlock birch door with pewter key')).toEqual({
      verb: 'unlock',
      template: 'unlock <> with <>',
      slots: [{ value: 'birch door' }, { value: 'pewter key' }],
    });
    expect(parseAction('go to fridge 1').template).toBe('go to <>');
    expect(parseAction('go north').template).toBe('go <>');
    expect(parseAction('look')).toEqual({ verb: 'look', template: 'look', slots: [] });
  });

  it('reads an action that fills an admissible template as that template, whatever the value holds', () => {
    const templates = ['find_customer[<name>]', 'say <text>', 'set[arrival=<date>]'];
    expect(parseAction('find_customer[Lena Quill]', templates)).toEqual({
      verb: 'find_customer',
      template: 'find_customer[<>]',
      slots: [{ value: 'Lena Quill' }],
      placeholder: 'name',
    });
    // Its own syntax would split the value at `to`.
    expect(parseAction('say go to the park', templates)).toMatchObject({
      template: 'say <>',
      slots: [{ value: 'go to the park' }],
      placeholder: 'text',
    });
    expect(parseAction('set[arrival=May 7]', templates)).toMatchObject({
      template: 'set[arrival=<>]',
      slots: [{ value: 'May 7', field: 'arrival' }],
      placeholder: 'date',
    });
    expect(parseAction('get_order[O-1]', templates).placeholder).toBeUndefined();
    expect(placeholdersOf('set[name=<full name>]')).toEqual(['full name']);
  });
});
