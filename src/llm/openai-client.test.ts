import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FileResponseCache } from './cache.ts';
import type { ChatMessage } from './client.ts';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmBadRequestError,
  LlmConnectionError,
  type LlmError,
  LlmModelNotFoundError,
  LlmOutputError,
  LlmRequestError,
  LlmTimeoutError,
} from './errors.ts';
import { OpenAiClient, type OpenAiClientOptions } from './openai-client.ts';
import { globalLlmStats } from './stats.ts';
import { type FakeChatRequest, FakeOpenAiServer } from './testing/fake-openai-server.ts';

const Verdict = z.object({ answer: z.enum(['yes', 'no']), confidence: z.number() });
const ask: ChatMessage[] = [
  { role: 'system', content: 'You judge.' },
  { role: 'user', content: 'Is the sky blue?' },
];
const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 5_000 };

let server: FakeOpenAiServer;
afterEach(async () => {
  await server?.close();
});

function client(options: Partial<OpenAiClientOptions> = {}) {
  return new OpenAiClient({
    baseURL: server.url,
    model: 'fake-model',
    retry: FAST_RETRY,
    ...options,
  });
}

function chatBodies(): FakeChatRequest[] {
  return server.posts('chat/completions').map((r) => r.body as FakeChatRequest);
}

describe('OpenAiClient against a well-behaved server', () => {
  beforeEach(async () => {
    server = await FakeOpenAiServer.start({ apiKey: 'sk-test' });
  });

  it('returns typed, schema-valid JSON with usage, and sends json_schema with the schema', async () => {
    const llm = client({ apiKey: 'sk-test', headers: { 'x-run': 'r1' } });
    const response = await llm.chat({ messages: ask, schema: Verdict, temperature: 0 });
    const verdict: { answer: 'yes' | 'no'; confidence: number } = response.json;
    expect(verdict).toEqual({ answer: 'yes', confidence: 0 });
    expect(response).toMatchObject({ finishReason: 'stop', attempts: 1, repaired: false });
    expect(response.usage).toEqual(server.usage);
    expect(response.latencyMs).toBeGreaterThan(0);

    const [request] = server.posts('chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.headers['x-run']).toBe('r1');
    const body = request?.body as FakeChatRequest;
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'answer',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            answer: { type: 'string', enum: ['yes', 'no'] },
            confidence: { type: 'number' },
          },
          required: ['answer', 'confidence'],
          additionalProperties: false,
        },
      },
    });
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 1, retries: 0, failures: 0 });
  });

  it('passes sampling options through and returns logprobs', async () => {
    const response = await client({ apiKey: 'sk-test' }).chat({
      messages: ask,
      temperature: 0.7,
      topP: 0.9,
      maxTokens: 50,
      stop: ['\n\n'],
      seed: 7,
      logprobs: true,
    });
    expect(response.text).toBe('You said: Is the sky blue?');
    expect(response.json).toBeUndefined();
    expect(chatBodies()[0]).toMatchObject({
      temperature: 0.7,
      top_p: 0.9,
      max_tokens: 50,
      stop: ['\n\n'],
      seed: 7,
      logprobs: true,
    });
    expect(response.logprobs?.map((t) => t.token).join('')).toBe(response.text);
  });

  it('adds tokens, cost and latency into the parent (global) counters', async () => {
    const before = globalLlmStats.snapshot();
    const llm = new OpenAiClient({
      baseURL: server.url,
      apiKey: 'sk-test',
      model: 'fake-model',
      prices: { promptPerMillion: 2, completionPerMillion: 8 },
    });
    await llm.chat({ messages: ask });
    await llm.chat({ messages: ask, schema: Verdict });
    const after = globalLlmStats.snapshot();
    const own = llm.stats();
    expect(own.promptTokens).toBe(server.usage.promptTokens);
    expect(own.completionTokens).toBe(server.usage.completionTokens);
    expect(own.costUsd).toBeCloseTo(
      (server.usage.promptTokens * 2 + server.usage.completionTokens * 8) / 1e6,
      12,
    );
    expect(after.calls - before.calls).toBe(2);
    expect(after.promptTokens - before.promptTokens).toBe(own.promptTokens);
    expect(own.latencyMs.max).toBeGreaterThanOrEqual(own.latencyMs.p50);
    expect(own.latencyMs.sum).toBeGreaterThan(0);
  });

  it('fails fast, without retries, on a wrong API key, model or request', async () => {
    const wrongKey = client({ apiKey: 'sk-wrong' });
    await expect(wrongKey.chat({ messages: ask })).rejects.toThrow(LlmAuthError);
    await expect(wrongKey.chat({ messages: ask })).rejects.toThrow(/--api-key or OPENAI_API_KEY/);

    const wrongModel = client({ apiKey: 'sk-test', model: 'gpt-17' });
    const notFound = await wrongModel.chat({ messages: ask }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(LlmModelNotFoundError);
    expect((notFound as Error).message).toMatch(/no model "gpt-17".*It serves: fake-model/);

    server.inject({ kind: 'status', status: 400, message: 'max_tokens is too large' });
    const badRequest = client({ apiKey: 'sk-test' });
    await expect(badRequest.chat({ messages: ask })).rejects.toThrow(
      /request rejected \(400\): max_tokens is too large/,
    );
    expect(server.posts('chat/completions')).toHaveLength(4);
    expect(wrongKey.stats()).toMatchObject({ calls: 2, attempts: 2, retries: 0, failures: 2 });
    expect(badRequest.stats()).toMatchObject({ calls: 1, attempts: 1, retries: 0, failures: 1 });
  });

  it('rejects a malformed request before sending it', async () => {
    const llm = client({ apiKey: 'sk-test' });
    await expect(llm.chat({ messages: [] })).rejects.toThrow(LlmRequestError);
    await expect(llm.chat({ messages: ask, maxTokens: 0 })).rejects.toThrow(/maxTokens/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAiClient under faults', () => {
  beforeEach(async () => {
    server = await FakeOpenAiServer.start();
  });

  it('retries an answer that comes after the timeout', async () => {
    server.inject({ kind: 'delay', ms: 3_000 });
    const llm = client({ timeoutMs: 200 });
    const started = performance.now();
    const response = await llm.chat({ messages: ask, schema: Verdict });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(response.attempts).toBe(2);
    expect(server.posts('chat/completions')).toHaveLength(2);
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 2, retries: 1, failures: 0 });
  });

  it('gives up with LlmTimeoutError after maxRetries', async () => {
    server.inject(...Array.from({ length: 3 }, () => ({ kind: 'delay' as const, ms: 3_000 })));
    const llm = client({ timeoutMs: 100, retry: { ...FAST_RETRY, maxRetries: 2 } });
    const error = await llm.chat({ messages: ask }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as LlmError).attempts).toBe(3);
    expect((error as Error).message).toMatch(/no answer within 100 ms.*gave up after 3 attempts/);
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 3, retries: 2, failures: 1 });
  });

  it('retries 500s and dropped connections', async () => {
    server.inject(
      { kind: 'status', status: 500 },
      { kind: 'drop' },
      { kind: 'status', status: 503 },
    );
    const llm = client();
    const response = await llm.chat({ messages: ask, schema: Verdict });
    expect(response.json.answer).toBe('yes');
    expect(response.attempts).toBe(4);
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 4, retries: 3, failures: 0 });
    expect(llm.stats().promptTokens).toBe(server.usage.promptTokens);
  });

  it('reports a dropped connection as LlmConnectionError when retries run out', async () => {
    server.inject({ kind: 'drop' }, { kind: 'drop' });
    const error = await client({ retry: { ...FAST_RETRY, maxRetries: 1 } })
      .chat({ messages: ask })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmConnectionError);
    expect((error as Error).message).toMatch(/connection failed.*URL, including \/v1/);
  });

  it('honours Retry-After on 429 instead of its shorter back-off', async () => {
    server.inject({ kind: 'status', status: 429, retryAfter: '1' });
    const llm = client();
    const started = performance.now();
    await llm.chat({ messages: ask });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(llm.stats()).toMatchObject({ attempts: 2, retries: 1 });
  });

  it('repairs malformed JSON in one round, showing the model its answer and the error', async () => {
    server.inject({ kind: 'malformed' });
    const llm = client();
    const response = await llm.chat({ messages: ask, schema: Verdict });
    expect(response).toMatchObject({ repaired: true, attempts: 2, json: { answer: 'yes' } });
    const repair = chatBodies()[1];
    expect(repair?.messages.slice(0, 2)).toEqual(ask);
    expect(repair?.messages[2]).toEqual({
      role: 'assistant',
      content: "{'answer':'yes','confidence':0}",
    });
    expect(repair?.messages[3]?.content).toMatch(/not valid for the required JSON schema/);
    expect(response.usage).toEqual(server.usage);
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 2, repairs: 1, retries: 0 });
  });

  it('repairs JSON cut off at the token limit', async () => {
    server.inject({ kind: 'truncated' });
    const response = await client().chat({ messages: ask, schema: Verdict, maxTokens: 10 });
    expect(response.repaired).toBe(true);
    expect(chatBodies()[1]?.messages.at(-1)?.content).toMatch(/cut off at the token limit/);
  });

  it('throws LlmOutputError after exactly one failed repair round', async () => {
    server.inject({ kind: 'truncated' }, { kind: 'malformed' });
    const llm = client();
    const error = await llm.chat({ messages: ask, schema: Verdict }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputError);
    expect(error).toMatchObject({
      problem: 'invalid-json',
      text: "{'answer':'yes','confidence':0}",
    });
    expect(server.posts('chat/completions')).toHaveLength(2);
    expect(llm.stats()).toMatchObject({ calls: 1, attempts: 2, repairs: 1, failures: 1 });
    expect(llm.stats().completionTokens).toBe(server.usage.completionTokens);
  });

  it('reports answers of the wrong shape as schema mismatches', async () => {
    await server.close();
    server = await FakeOpenAiServer.start({ reply: () => '{"answer":"maybe","confidence":1}' });
    const error = await client()
      .chat({ messages: ask, schema: Verdict })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LlmOutputError', problem: 'schema-mismatch' });
    expect(chatBodies()[1]?.messages.at(-1)?.content).toMatch(/expected one of "yes"\|"no"/);
  });

  it('aborts on the caller signal without retrying', async () => {
    server.inject({ kind: 'delay', ms: 5_000 });
    const llm = client();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const error = await llm.chat({ messages: ask, signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmAbortedError);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(llm.stats()).toMatchObject({ attempts: 1, retries: 0, failures: 1 });
  });

  it('reports an unreachable server as LlmConnectionError', async () => {
    const url = server.url;
    await server.close();
    const llm = new OpenAiClient({
      baseURL: url,
      model: 'm',
      retry: { ...FAST_RETRY, maxRetries: 1 },
    });
    await expect(llm.chat({ messages: ask })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('keeps at most maxConcurrency requests in flight', async () => {
    await server.close();
    server = await FakeOpenAiServer.start({ latencyMs: 40 });
    const llm = client({ maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 10 }, () => llm.chat({ messages: ask })));
    expect(server.maxInFlight).toBe(3);
  });

  it('counts exactly what happened across a mix of faults', async () => {
    const llm = client();
    // Call 1: a 502 (retried), a truncated answer (repaired), a drop during the repair (retried).
    server.inject({ kind: 'status', status: 502 }, { kind: 'truncated' }, { kind: 'drop' });
    await llm.chat({ messages: ask, schema: Verdict });
    // Call 2: malformed twice: one repair round, then LlmOutputError.
    server.inject({ kind: 'malformed' }, { kind: 'malformed' });
    await expect(llm.chat({ messages: ask, schema: Verdict })).rejects.toThrow(LlmOutputError);
    // Call 3: a 400 is not retried.
    server.inject({ kind: 'status', status: 400 });
    await expect(llm.chat({ messages: ask })).rejects.toThrow(LlmBadRequestError);
    await llm.chat({ messages: ask });
    const stats = llm.stats();
    expect(stats).toMatchObject({
      calls: 4,
      attempts: server.posts('chat/completions').length,
      retries: 2,
      repairs: 2,
      failures: 2,
      cacheHits: 0,
      promptTokens: server.usage.promptTokens,
      completionTokens: server.usage.completionTokens,
    });
    expect(stats.attempts).toBe(8);
  });
});

describe('OpenAiClient with a server that refuses json_schema', () => {
  beforeEach(async () => {
    server = await FakeOpenAiServer.start({
      jsonSchema: false,
      reply: () => '{"answer":"no","confidence":0.5}',
    });
  });

  it('falls back to json_object once, with the schema in the prompt, and remembers', async () => {
    const llm = client();
    const first = await llm.chat({ messages: ask, schema: Verdict });
    expect(first.json).toEqual({ answer: 'no', confidence: 0.5 });
    expect(first.warnings[0]).toMatch(/refused response_format json_schema/);
    const second = await llm.chat({ messages: ask, schema: Verdict });
    expect(second.warnings).toEqual([]);

    const formats = chatBodies().map((b) => b.response_format?.type);
    expect(formats).toEqual(['json_schema', 'json_object', 'json_object']);
    // The refused probe is the backend's own re-send, not a retry of a fault.
    expect(first.attempts).toBe(1);
    expect(llm.stats()).toMatchObject({ calls: 2, attempts: 2, retries: 0, repairs: 0 });
    const system = chatBodies()[1]?.messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/^You judge\.\n\nAnswer with only a JSON value/);
    expect(system?.content).toContain('"enum":["yes","no"]');
  });
});

describe('OpenAiClient with a response cache', () => {
  beforeEach(async () => {
    let n = 0;
    server = await FakeOpenAiServer.start({
      models: ['fake-model', 'other-model'],
      reply: (body) => (body.response_format ? JSON.stringify(`answer ${++n}`) : `answer ${++n}`),
    });
  });

  it('replays a run from disk: cache hits are not calls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-llm-cache-'));
    const run = async () => {
      const llm = client({ cache: new FileResponseCache(dir) });
      const texts: string[] = [];
      for (let i = 0; i < 2; i++)
        texts.push((await llm.chat({ messages: ask, temperature: 1 })).text);
      texts.push((await llm.chat({ messages: ask, temperature: 0 })).text);
      texts.push((await llm.chat({ messages: ask, temperature: 0 })).text);
      return { texts, stats: llm.stats() };
    };
    const first = await run();
    // Sampled repeats get distinct answers; greedy repeats share one.
    expect(first.texts).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 3']);
    expect(first.stats).toMatchObject({ calls: 3, cacheHits: 1 });
    const second = await run();
    expect(second.texts).toEqual(first.texts);
    expect(second.stats).toMatchObject({ calls: 0, attempts: 0, cacheHits: 4, promptTokens: 0 });
    expect(server.posts('chat/completions')).toHaveLength(3);
  });

  it('keys on the model, the messages, the options and the schema', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-llm-cache-'));
    const llm = client({ cache: new FileResponseCache(dir) });
    await llm.chat({ messages: ask, temperature: 0 });
    await llm.chat({ messages: ask, temperature: 0, maxTokens: 5 });
    await llm.chat({ messages: [...ask, { role: 'user', content: 'Sure?' }], temperature: 0 });
    await llm.chat({ messages: ask, temperature: 0, schema: z.string() });
    const otherModel = client({ cache: new FileResponseCache(dir), model: 'other-model' });
    await otherModel.chat({ messages: ask, temperature: 0 });
    expect(llm.stats()).toMatchObject({ calls: 4, cacheHits: 0 });
    expect(otherModel.stats()).toMatchObject({ calls: 1, cacheHits: 0 });
    const sameRequest = client({ cache: new FileResponseCache(dir) });
    const hit = await sameRequest.chat({ messages: ask, temperature: 0, schema: z.string() });
    expect(hit).toMatchObject({ cached: true, attempts: 0, json: 'answer 4' });
    expect(server.posts('chat/completions')).toHaveLength(5);
  });
});
