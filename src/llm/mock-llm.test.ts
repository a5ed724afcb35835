import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmError, LlmOutputError, LlmTimeoutError } from './errors.ts';
import { MockLlm } from './mock-llm.ts';

const user = (content: string) => [{ role: 'user' as const, content }];

describe('MockLlm', () => {
  it('answers from a list, objects as JSON, and records the requests', async () => {
    const llm = new MockLlm({ answers: ['plain text', { answer: 'yes' }] });
    expect((await llm.chat({ messages: user('a') })).text).toBe('plain text');
    const second = await llm.chat({
      messages: user('b'),
      schema: z.object({ answer: z.enum(['yes', 'no']) }),
      temperature: 0,
    });
    expect(second.json).toEqual({ answer: 'yes' });
    expect(second.text).toBe('{"answer":"yes"}');
    expect(llm.requests.map((r) => r.messages[0]?.content)).toEqual(['a', 'b']);
    expect(llm.requests[1]?.temperature).toBe(0);
    expect(llm.stats()).toMatchObject({ calls: 2, failures: 0 });
  });

  it('answers from a function of the request', async () => {
    const llm = new MockLlm({
      answers: (request, i) => `${i}:${request.messages.at(-1)?.content}`,
    });
    expect((await llm.chat({ messages: user('x') })).text).toBe('0:x');
    expect((await llm.chat({ messages: user('y') })).text).toBe('1:y');
  });

  it('throws scripted errors and validates answers against the schema', async () => {
    const llm = new MockLlm({ answers: [new LlmTimeoutError('mock', 10), { answer: 'maybe' }] });
    await expect(llm.chat({ messages: user('a') })).rejects.toThrow(LlmTimeoutError);
    const error = await llm
      .chat({ messages: user('b'), schema: z.object({ answer: z.enum(['yes', 'no']) }) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputError);
    expect(error).toMatchObject({ problem: 'schema-mismatch' });
    expect(llm.stats().failures).toBe(2);
  });

  it('fails loudly, not as an LlmError, when the script runs out', async () => {
    const llm = new MockLlm({ answers: ['only one'] });
    await llm.chat({ messages: user('a') });
    const error = await llm.chat({ messages: user('b') }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(LlmError);
    expect((error as Error).message).toMatch(/request #2 but only 1 answers/);
  });
});
