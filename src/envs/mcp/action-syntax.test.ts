import { describe, expect, it } from 'vitest';
import { formatAnswer, formatToolCall, parseMcpAction } from './action-syntax.ts';

describe('MCP action syntax', () => {
  it('parses a tool call with JSON arguments', () => {
    expect(parseMcpAction('lend_book({"book_id": "b3", "member": "ada"})')).toEqual({
      kind: 'call',
      tool: 'lend_book',
      arguments: { book_id: 'b3', member: 'ada' },
    });
    expect(
      parseMcpAction('  set_limits ( {"max": 3, "tags": ["a"], "deep": {"x": null}} )\n'),
    ).toEqual({
      kind: 'call',
      tool: 'set_limits',
      arguments: { max: 3, tags: ['a'], deep: { x: null } },
    });
  });

  it('parses a call without arguments, written () or ({})', () => {
    expect(parseMcpAction('list_loans()')).toEqual({
      kind: 'call',
      tool: 'list_loans',
      arguments: {},
    });
    expect(parseMcpAction('list_loans( )')).toEqual({
      kind: 'call',
      tool: 'list_loans',
      arguments: {},
    });
    expect(parseMcpAction('list_loans({})')).toEqual({
      kind: 'call',
      tool: 'list_loans',
      arguments: {},
    });
  });

  it('keeps brackets and parentheses inside JSON strings, and MCP tool-name characters', () => {
    expect(parseMcpAction('note({"text": "a) b] (c"})')).toEqual({
      kind: 'call',
      tool: 'note',
      arguments: { text: 'a) b] (c' },
    });
    expect(parseMcpAction('files.read-v2/raw({"path": "/x"})')).toMatchObject({
      tool: 'files.read-v2/raw',
    });
  });

  it('parses the final answer, any text up to the last bracket', () => {
    expect(parseMcpAction('answer[George Eliot]')).toEqual({
      kind: 'answer',
      text: 'George Eliot',
    });
    expect(parseMcpAction('answer[ a [nested] answer ]')).toEqual({
      kind: 'answer',
      text: 'a [nested] answer',
    });
    expect(parseMcpAction('answer[line one\nline two]')).toEqual({
      kind: 'answer',
      text: 'line one\nline two',
    });
    expect(parseMcpAction('answer[]')).toEqual({ kind: 'answer', text: '' });
  });

  it('a tool named answer is still a call: parentheses and brackets never mix', () => {
    expect(parseMcpAction('answer({"text": "hi"})')).toEqual({
      kind: 'call',
      tool: 'answer',
      arguments: { text: 'hi' },
    });
  });

  it('refuses malformed actions and says what to write', () => {
    const invalid = (text: string) => {
      const parsed = parseMcpAction(text);
      expect(parsed).toHaveProperty('invalid');
      return (parsed as { invalid: string }).invalid;
    };
    expect(invalid('')).toMatch(/empty.*name\(\{"arg": value\}\).*answer\[text\]/);
    expect(invalid('   ')).toMatch(/empty/);
    expect(invalid('list_loans')).toBe(
      '"list_loans" has no argument list; write list_loans() or list_loans({...})',
    );
    expect(invalid('lend_book({"book_id": b3})')).toMatch(
      /^the arguments of lend_book are not JSON \(.*\); write one JSON object, e\.g\. lend_book\(\{"key": "value"\}\)$/,
    );
    expect(invalid('lend_book(["b3"])')).toMatch(/must be one JSON object, not an array/);
    expect(invalid('lend_book("b3")')).toMatch(/not a string/);
    expect(invalid('lend_book(null)')).toMatch(/not null/);
    expect(invalid('lend_book({"a": 1}) and more')).toMatch(/is not an action/);
    expect(invalid('lend_book{"book_id": "b3"}')).toMatch(/is not an action/);
    expect(invalid('lend_book({"a": 1}))')).toMatch(/not JSON/);
    expect(invalid('frobnicate[the moon]')).toMatch(/is not an action/);
    expect(invalid('two words()')).toMatch(/is not an action/);
    expect(invalid('Answer[x]')).toMatch(/is not an action/);
  });

  it('formats calls and answers that parse back to themselves', () => {
    const call = { tool: 'lend_book', arguments: { book_id: 'b"3', member: 'ada' } };
    expect(formatToolCall(call)).toBe('lend_book({"book_id":"b\\"3","member":"ada"})');
    expect(parseMcpAction(formatToolCall(call))).toEqual({ kind: 'call', ...call });
    expect(formatToolCall({ tool: 'list_loans', arguments: {} })).toBe('list_loans()');
    expect(parseMcpAction(formatAnswer('42'))).toEqual({ kind: 'answer', text: '42' });
  });
});
