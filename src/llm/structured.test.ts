import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toGbnfJsonSchema } from './gbnf-schema.ts';
import { checkAnswer, toJsonSchema } from './structured.ts';

const Step = z.object({ action: z.string(), reward: z.number().min(0).max(1) });

describe('checkAnswer', () => {
  it('parses valid JSON, also inside a Markdown fence', () => {
    expect(checkAnswer('{"action":"look","reward":1}', 'stop', Step)).toEqual({
      ok: true,
      value: { action: 'look', reward: 1 },
    });
    expect(checkAnswer('```json\n{"action":"go","reward":0}\n```', 'stop', Step)).toMatchObject({
      ok: true,
    });
  });

  it('tells truncation, invalid JSON and schema mismatch apart', () => {
    expect(checkAnswer('{"action":"lo', 'length', Step)).toMatchObject({ problem: 'truncated' });
    expect(checkAnswer('{"action":"lo', 'stop', Step)).toMatchObject({ problem: 'invalid-json' });
    const mismatch = checkAnswer('{"action":"go","reward":3}', 'stop', Step);
    expect(mismatch).toMatchObject({ ok: false, problem: 'schema-mismatch' });
    expect(mismatch.ok || mismatch.detail).toMatch(/reward/);
  });

  it('accepts a complete answer even at the token limit', () => {
    expect(checkAnswer('{"action":"go","reward":0}', 'length', Step).ok).toBe(true);
  });
});

describe('toJsonSchema', () => {
  it('drops the $schema tag, closes objects and memoises per schema', () => {
    const json = toJsonSchema(Step);
    expect(json.$schema).toBeUndefined();
    expect(json.required).toEqual(['action', 'reward']);
    expect(json.additionalProperties).toBe(false);
    expect(toJsonSchema(Step)).toBe(json);
  });

  it('describes what the model writes: the input of defaults and transforms', () => {
    const Move = z.object({
      action: z.string().transform((a) => a.toLowerCase()),
      steps: z.number().default(1),
    });
    expect(toJsonSchema(Move)).toMatchObject({
      properties: { action: { type: 'string' }, steps: { type: 'number', default: 1 } },
      required: ['action'],
    });
    expect(checkAnswer('{"action":"LOOK"}', 'stop', Move)).toEqual({
      ok: true,
      value: { action: 'look', steps: 1 },
    });
  });
});

describe('toGbnfJsonSchema', () => {
  it("rewrites zod's output into node-llama-cpp's subset", () => {
    const schema = z.object({
      kind: z.union([z.literal('a'), z.literal('b')]),
      level: z.enum(['low', 'high']).nullable(),
      name: z.string().regex(/^x/).max(8),
      score: z.number().min(0),
      tags: z.array(z.string()).max(3),
      note: z.unknown(),
    });
    expect(toGbnfJsonSchema(toJsonSchema(schema))).toEqual({
      type: 'object',
      properties: {
        kind: { oneOf: [{ const: 'a' }, { const: 'b' }] },
        level: { oneOf: [{ enum: ['low', 'high'] }, { type: 'null' }] },
        name: { type: 'string', maxLength: 8 },
        score: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        note: {
          oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
        },
      },
      required: ['kind', 'level', 'name', 'score', 'tags', 'note'],
      additionalProperties: false,
    });
  });
});
