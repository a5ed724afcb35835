import { APICallError, LoadAPIKeyError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AiSdkClient } from './ai-sdk-client.ts';
import { LlmAbortedError, LlmAuthError, LlmBadRequestError, LlmRequestError } from './errors.ts';
import { LlmStats } from './stats.ts';

type Generate = MockLanguageModelV3['doGenerate'];

/** A provider's answer as the v3 model spec shapes it. */
const answer = (text: string, finish: 'stop' | 'length' = 'stop') => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: finish, raw: finish },
  usage: {
    inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  },
  warnings: [],
});

const apiError = (status: number, retryable: boolean, headers: Record<string, string> = {}) =>
  new APICallError({
    message: `HTTP ${status}`,
    url: 'https://provider.example/v1/messages',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    responseBody: `{"error":"status ${status}"}`,
    isRetryable: retryable,
  });

/** A mock model that answers each call with the next of `steps` (an answer or an error). */
function model(...steps: Array<ReturnType<typeof answer> | Error>) {
  const doGenerate: Generate = async () => {
    const step = steps.shift();
    if (!step) throw new Error('the mock model ran out of answers');
    if (step instanceof Error) throw step;
    return step;
  };
  return new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-1', doGenerate });
}

const client = (m: MockLanguageModelV3) =>
  new AiSdkClient({
    model: m,
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    parentStats: new LlmStats(),
  });

describe('AiSdkClient over an AI SDK language model', () => {
  it('chats: messages, sampling options, usage and finish reason pass through', async () => {
    const m = model(answer('a results page', 'length'));
    const llm = client(m);
    const response = await llm.chat({
      messages: [
        { role: 'system', content: 'You predict web pages.' },
        { role: 'user', content: 'search[mug]' },
      ],
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 64,
      stop: ['\n\n'],
      seed: 7,
    });
    expect(llm.id).toBe('ai-sdk:mock-provider/mock-1');
    expect(response).toMatchObject({
      text: 'a results page',
      finishReason: 'length',
      usage: { promptTokens: 12, completionTokens: 5 },
      attempts: 1,
    });
    const call = m.doGenerateCalls[0];
    expect(call).toMatchObject({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 64,
      stopSequences: ['\n\n'],
      seed: 7,
    });
    expect(call?.prompt.map((p) => p.role)).toEqual(['system', 'user']);
  });

  it('asks for structured output with the JSON Schema and returns the parsed value', async () => {
    const m = model(answer('{"nextState": "cart", "reward": 1}'));
    const Next = z.object({ nextState: z.string(), reward: z.number() });
    const response = await client(m).chat({
      messages: [{ role: 'user', content: 'buy' }],
      schema: Next,
      schemaName: 'next_state',
    });
    expect(response.json).toEqual({ nextState: 'cart', reward: 1 });
    const format = m.doGenerateCalls[0]?.responseFormat;
    expect(format).toMatchObject({ type: 'json', name: 'next_state' });
    expect(format?.type === 'json' && format.schema).toMatchObject({
      type: 'object',
      properties: { nextState: { type: 'string' }, reward: { type: 'number' } },
    });
  });

  it('repairs an answer the schema rejects, as for every backend', async () => {
    const m = model(answer('{"nextState": 3}'), answer('{"nextState": "cart", "reward": 0}'));
    const Next = z.object({ nextState: z.string(), reward: z.number() });
    const response = await client(m).chat({
      messages: [{ role: 'user', content: 'x' }],
      schema: Next,
    });
    expect(response).toMatchObject({ json: { nextState: 'cart', reward: 0 }, repaired: true });
    expect(m.doGenerateCalls).toHaveLength(2);
  });

  it('retries a retryable provider failure (503, then 429 with Retry-After) and succeeds', async () => {
    const m = model(apiError(503, true), apiError(429, true, { 'retry-after': '0' }), answer('ok'));
    const llm = client(m);
    const response = await llm.chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(response).toMatchObject({ text: 'ok', attempts: 3 });
    expect(llm.stats().retries).toBe(2);
  });

  it('fails at once on a request the provider rejects, naming the provider and status', async () => {
    const m = model(apiError(400, false), answer('never'));
    const error = await client(m)
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmBadRequestError);
    expect((error as Error).message).toMatch(
      /AI SDK provider mock-provider: request rejected \(400\)/,
    );
    expect(m.doGenerateCalls).toHaveLength(1);
  });

  it("names a provider's fix, not an OpenAI server's, for a rejected key, and a missing key is not retried", async () => {
    const rejected = model(apiError(401, false));
    const auth = (await client(rejected)
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as Error;
    expect(auth).toBeInstanceOf(LlmAuthError);
    expect(auth.message).toMatch(/API key the provider was built with/);
    expect(auth.message).not.toMatch(/OPENAI_API_KEY|\/v1/);

    const missing = model(new LoadAPIKeyError({ message: 'Anthropic API key is missing.' }));
    const request = await client(missing)
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(request).toBeInstanceOf(LlmRequestError);
    expect(missing.doGenerateCalls).toHaveLength(1);
  });

  it("stops on the caller's abort", async () => {
    const slow = new MockLanguageModelV3({
      doGenerate: (options) =>
        new Promise((_, reject) =>
          options.abortSignal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    });
    const controller = new AbortController();
    const pending = client(slow).chat({
      messages: [{ role: 'user', content: 'x' }],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(LlmAbortedError);
  });
});
