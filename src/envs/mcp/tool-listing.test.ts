import { describe, expect, it } from 'vitest';
import { isActionTemplate } from '../../core/types.ts';
import { fillTemplate } from '../actions.ts';
import { parseMcpAction } from './action-syntax.ts';
import { toolSignature, toolTemplate } from './tool-listing.ts';

const lend = {
  name: 'lend_book',
  description: 'Lends a copy\n  of a book.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      book_id: { type: 'string' },
      copies: { type: 'integer' },
      shelf: { enum: ['a', 'b'] },
      note: { type: 'string' },
    },
    required: ['book_id', 'copies', 'shelf'],
  },
};

describe('MCP tool templates and signatures', () => {
  it('lists required arguments as placeholders, quoted for strings only', () => {
    const template = toolTemplate(lend);
    expect(template).toBe(
      'lend_book({"book_id": "<book_id>", "copies": <copies>, "shelf": "<shelf>"})',
    );
    expect(isActionTemplate(template)).toBe(true);
  });

  it('gives tool() when nothing is required, which is a complete call', () => {
    const template = toolTemplate({
      name: 'list_loans',
      inputSchema: { type: 'object', properties: { member: { type: 'string' } } },
    });
    expect(template).toBe('list_loans()');
    expect(isActionTemplate(template)).toBe(false);
    expect(parseMcpAction(template)).toEqual({ kind: 'call', tool: 'list_loans', arguments: {} });
  });

  it('a filled string placeholder parses as a call', () => {
    const filled = fillTemplate(
      toolTemplate({
        name: 'search_catalog',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      }),
      'left hand',
    );
    expect(parseMcpAction(filled)).toEqual({
      kind: 'call',
      tool: 'search_catalog',
      arguments: { query: 'left hand' },
    });
  });

  it('strips angle brackets from property names so a placeholder stays one placeholder', () => {
    expect(
      toolTemplate({
        name: 't',
        inputSchema: {
          type: 'object',
          properties: { '<x>': { type: 'number' } },
          required: ['<x>'],
        },
      }),
    ).toBe('t({"<x>": <x>})');
  });

  it('signs every argument, optional ones with ?, and flattens the description', () => {
    expect(toolSignature(lend)).toBe(
      'lend_book(book_id: string, copies: integer, shelf: "a" | "b", note?: string): Lends a copy of a book.',
    );
    expect(toolSignature({ name: 'ping', inputSchema: { type: 'object' } })).toBe('ping()');
    expect(
      toolSignature({
        name: 'f',
        inputSchema: { type: 'object', properties: { v: { type: ['string', 'null'] }, w: {} } },
      }),
    ).toBe('f(v?: string | null, w?: any)');
  });
});
