import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryResponseCache } from './cache.ts';
import type { ChatMessage } from './client.ts';
import {
  LlmAbortedError,
  LlmBackendMissingError,
  LlmModelFileError,
  LlmOutputError,
  LlmTimeoutError,
} from './errors.ts';
import { LlamaCppClient } from './llama-cpp-client.ts';
import { importNodeLlamaCpp } from './llama-cpp-loader.ts';
import { writeTinyLlamaGguf } from './testing/tiny-gguf.ts';

const dir = mkdtempSync(join(tmpdir(), 'dreamgym-gguf-'));
const ask: ChatMessage[] = [
  { role: 'system', content: 'Answer in JSON.' },
  { role: 'user', content: 'Is the sky blue?' },
];
const YesNo = z.object({ answer: z.enum(['yes', 'no']) });

// The tiny model's weights are random: it answers nonsense, but the grammar forces valid JSON,
// and small enums and booleans keep answers short (nonsense numbers and strings can overflow).
describe('LlamaCppClient on a generated tiny GGUF', () => {
  let llm: LlamaCppClient;
  beforeAll(async () => {
    const gguf = await writeTinyLlamaGguf(join(dir, 'tiny.gguf'));
    llm = await LlamaCppClient.load({
      gguf,
      gpu: false,
      threads: 1,
      contextSize: 512,
      sequences: 2,
    });
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('answers schema-valid JSON through the grammar', async () => {
    const response = await llm.chat({
      messages: ask,
      schema: YesNo,
      maxTokens: 40,
      temperature: 0,
    });
    expect(['yes', 'no']).toContain(response.json.answer);
    expect(JSON.parse(response.text)).toEqual(response.json);
    expect(response).toMatchObject({ finishReason: 'stop', attempts: 1, repaired: false });
    expect(response.usage.promptTokens).toBeGreaterThan(10);
    expect(response.usage.completionTokens).toBeGreaterThan(3);
    expect(llm.id).toBe('llama-cpp:tiny.gguf');
  });

  it('handles unions of literals, booleans and nested objects', async () => {
    const Move = z.object({
      kind: z.union([z.literal('search'), z.literal('click')]),
      done: z.boolean(),
      target: z.object({ slot: z.enum(['a', 'b', 'c']) }),
    });
    const response = await llm.chat({
      messages: [{ role: 'user', content: 'Next move?' }],
      schema: Move,
      maxTokens: 80,
      temperature: 0.8,
      seed: 5,
    });
    expect(Move.parse(response.json)).toEqual(response.json);
  });

  it('reuses the loaded context: a repeated prompt is not evaluated again', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Repeat after me: reuse.' }];
    const first = await llm.chat({ messages, schema: YesNo, maxTokens: 40, temperature: 0 });
    const second = await llm.chat({ messages, schema: YesNo, maxTokens: 40, temperature: 0 });
    expect(second.text).toBe(first.text);
    expect(second.usage.promptTokens).toBeLessThan(first.usage.promptTokens);
  });

  it('serves a repeated greedy request from the response cache', async () => {
    const cached = await LlamaCppClient.load({
      gguf: join(dir, 'tiny.gguf'),
      gpu: false,
      threads: 1,
      cache: new MemoryResponseCache(),
    });
    const request = { messages: ask, schema: YesNo, maxTokens: 40, temperature: 0 };
    const first = await cached.chat(request);
    const second = await cached.chat(request);
    expect(second).toMatchObject({ cached: true, attempts: 0, json: first.json, text: first.text });
    expect(cached.stats()).toMatchObject({ calls: 1, cacheHits: 1 });
    await cached.close();
  });

  it('serves parallel calls on its sequences', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        llm.chat({
          messages: [{ role: 'user', content: `Question ${i}?` }],
          schema: YesNo,
          maxTokens: 40,
          temperature: 0,
        }),
      ),
    );
    for (const a of answers) expect(['yes', 'no']).toContain(a.json.answer);
  });

  it('repairs once, then reports an answer cut off at maxTokens as LlmOutputError', async () => {
    const before = llm.stats();
    const error = await llm
      .chat({ messages: ask, schema: YesNo, maxTokens: 3, temperature: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOutputError);
    expect(error).toMatchObject({ problem: 'truncated', attempts: 2 });
    const after = llm.stats();
    expect(after.repairs - before.repairs).toBe(1);
    expect(after.failures - before.failures).toBe(1);
  });

  it('times out a generation and keeps working afterwards', async () => {
    const slow = await LlamaCppClient.load({
      gguf: join(dir, 'tiny.gguf'),
      gpu: false,
      threads: 1,
      timeoutMs: 1,
      retry: { maxRetries: 1, initialDelayMs: 1 },
    });
    await expect(slow.chat({ messages: ask, maxTokens: 200 })).rejects.toThrow(LlmTimeoutError);
    expect(slow.stats()).toMatchObject({ attempts: 2, retries: 1, failures: 1 });
    await slow.close();
  });

  it('stops a generation on the caller signal and reuses its sequence', async () => {
    const controller = new AbortController();
    const pending = llm.chat({ messages: ask, maxTokens: 400, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toThrow(LlmAbortedError);
    const after = await llm.chat({ messages: ask, schema: YesNo, maxTokens: 40, temperature: 0 });
    expect(['yes', 'no']).toContain(after.json.answer);
  });
});

describe('LlamaCppClient load errors', () => {
  it('names a missing GGUF file and how to get one', async () => {
    const error = await LlamaCppClient.load({ gguf: join(dir, 'none.gguf'), gpu: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LlmModelFileError);
    expect((error as Error).message).toMatch(/none\.gguf: no such file.*--gguf PATH/);
  });

  it('rejects a file that is not GGUF', async () => {
    const path = join(dir, 'notes.gguf');
    writeFileSync(path, 'not a model');
    await expect(LlamaCppClient.load({ gguf: path, gpu: false })).rejects.toThrow(
      /cannot load it as a GGUF model \(Invalid GGUF magic/,
    );
  });

  it('says how to install node-llama-cpp when it is missing', async () => {
    const missing = Object.assign(
      new Error("Cannot find package 'node-llama-cpp' imported from /app/src/llm/x.ts"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const error = await importNodeLlamaCpp(() => Promise.reject(missing)).catch((e) => e);
    expect(error).toBeInstanceOf(LlmBackendMissingError);
    expect((error as Error).message).toMatch(/npm install node-llama-cpp/);
  });
});
