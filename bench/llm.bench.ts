/**
 * LLM client throughput against the fake OpenAI-compatible server answering after 100 ms: calls
 * per second at concurrency 1, 8 and 64, and the speed-up over concurrency 1 (it should approach
 * the concurrency: the client must not serialise). Also the client's own cost per structured call
 * (HTTP, SDK, validation, accounting) against a server that answers at once. The server runs in
 * a worker thread so that its CPU time is not charged to the client.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { OpenAiClient } from '../src/llm/openai-client.ts';
import { LlmStats } from '../src/llm/stats.ts';
import type { FakeOpenAiServerOptions } from '../src/llm/testing/fake-openai-server.ts';
import { measure, timeOnce } from './measure.ts';

const Step = z.object({
  nextState: z.string(),
  reward: z.number(),
  terminated: z.boolean(),
});
const LATENCY_MS = 100;

function request(i: number) {
  return {
    messages: [
      { role: 'system' as const, content: 'You predict the next state of a web shop.' },
      { role: 'user' as const, content: `State ${i}: search results. Action: click[B0${i}]` },
    ],
    schema: Step,
    temperature: 0,
  };
}

/** Starts the fake server in a worker thread (loading TypeScript through tsx there too). */
async function serverThread(options: FakeOpenAiServerOptions) {
  const worker = new Worker(
    `(async () => {
      const { parentPort, workerData } = require('node:worker_threads');
      (await import(workerData.tsx)).register();
      const { FakeOpenAiServer } = await import(workerData.server);
      parentPort.postMessage((await FakeOpenAiServer.start(workerData.options)).url);
    })();`,
    {
      eval: true,
      workerData: {
        tsx: import.meta.resolve('tsx/esm/api'),
        server: new URL('../src/llm/testing/fake-openai-server.ts', import.meta.url).href,
        options,
      },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url, stop: () => worker.terminate() };
}

export default async function llmBench() {
  const results: Record<string, unknown> = { serverLatencyMs: LATENCY_MS };
  const slow = await serverThread({ latencyMs: LATENCY_MS });
  try {
    let baseline = 0;
    for (const concurrency of [1, 8, 64]) {
      const llm = new OpenAiClient({
        baseURL: slow.url,
        model: 'fake-model',
        maxConcurrency: concurrency,
        parentStats: new LlmStats(),
      });
      // Warm-up: opens the keep-alive connections.
      await Promise.all(Array.from({ length: concurrency }, (_, i) => llm.chat(request(i))));
      const calls = Math.max(20, concurrency * 8);
      const ms = await timeOnce(() =>
        Promise.all(Array.from({ length: calls }, (_, i) => llm.chat(request(i)))),
      );
      const callsPerSecond = (calls / ms) * 1000;
      if (concurrency === 1) baseline = callsPerSecond;
      results[`concurrency${concurrency}`] = {
        calls,
        seconds: ms / 1000,
        callsPerSecond,
        speedupVsConcurrency1: callsPerSecond / baseline,
      };
      console.log(
        `concurrency ${String(concurrency).padStart(2)}: ${callsPerSecond.toFixed(1)} calls/s ` +
          `(${(callsPerSecond / baseline).toFixed(1)}× concurrency 1)`,
      );
    }
  } finally {
    await slow.stop();
  }

  const instant = await serverThread({});
  try {
    const llm = new OpenAiClient({
      baseURL: instant.url,
      model: 'fake-model',
      parentStats: new LlmStats(),
    });
    const overhead = await measure((i) => llm.chat(request(i)), { warmup: 50, iterations: 500 });
    results.instantServerCallMs = overhead;
    console.log(
      `one structured call to an instant server (HTTP round trip included): p50 ${overhead.median.toFixed(2)} ms, p90 ${overhead.p90.toFixed(2)} ms`,
    );
  } finally {
    await instant.stop();
  }
  return results;
}
