import type { Command } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { LlmClient } from '../../llm/client.ts';
import { LlamaCppClient } from '../../llm/llama-cpp-client.ts';
import { OpenAiClient } from '../../llm/openai-client.ts';
import { intOption } from '../options.ts';

const CheckAnswer = z.object({ answer: z.enum(['yes', 'no']) });

const EXAMPLES = `
Examples:
  dreamgym llm check --url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct
  dreamgym llm check --url https://api.openai.com/v1 --model gpt-4o-mini --api-key sk-…
  dreamgym llm check --gguf models/qwen2.5-0.5b-instruct-q4_k_m.gguf --threads 4`;

interface CheckOptions {
  url?: string;
  model?: string;
  apiKey?: string;
  gguf?: string;
  threads?: number;
  timeout: number;
}

export function llmCommand(program: Command): void {
  const llm = program.command('llm').description('LLM backends');
  llm
    .command('check')
    .description(
      'send one structured request to an LLM and print the parsed answer, latency and tokens',
    )
    .option('--url <url>', 'base URL of an OpenAI-compatible server, with /v1')
    .option('--model <name>', 'model name the server serves (with --url)')
    .option('--api-key <key>', 'API key (with --url; default: env OPENAI_API_KEY, else none)')
    .option('--gguf <path>', 'a local GGUF model file, run in-process by llama.cpp')
    .option('--threads <n>', 'CPU threads (with --gguf)', intOption(1))
    .option('--timeout <ms>', 'per-request timeout in ms (one retry)', intOption(1), 60_000)
    .addHelpText('after', EXAMPLES)
    .action(async (o: CheckOptions) => {
      const started = performance.now();
      const client = await connect(o);
      const loadMs = performance.now() - started;
      try {
        const response = await client.chat({
          messages: [
            { role: 'system', content: 'You are a connectivity check. Answer in JSON only.' },
            { role: 'user', content: 'Is the sky blue on a clear day? Answer yes or no.' },
          ],
          schema: CheckAnswer,
          schemaName: 'check',
          maxTokens: 64,
          temperature: 0,
        });
        const lines = [
          `backend   ${o.gguf ? `llama.cpp ${o.gguf} (loaded in ${loadMs.toFixed(0)} ms)` : `${o.url} (model ${o.model})`}`,
          `answer    ${JSON.stringify(response.json)}${response.repaired ? ' (after a repair round)' : ''}`,
          `latency   ${response.latencyMs.toFixed(0)} ms (${response.attempts} ${response.attempts === 1 ? 'request' : 'requests'})`,
          `tokens    ${response.usage.promptTokens} prompt + ${response.usage.completionTokens} completion`,
          ...response.warnings.map((w) => `warning   ${w}`),
        ];
        console.log(lines.join('\n'));
      } finally {
        if (client instanceof LlamaCppClient) await client.close();
      }
    });
}

async function connect(o: CheckOptions): Promise<LlmClient> {
  const retry = { maxRetries: 1 };
  if (o.url && o.gguf)
    throw new ConfigError('--url and --gguf exclude each other; pick one backend.');
  if (o.gguf) {
    if (o.model || o.apiKey)
      throw new ConfigError(
        '--model and --api-key go with --url; a GGUF file names its own model.',
      );
    return LlamaCppClient.load({ gguf: o.gguf, threads: o.threads, timeoutMs: o.timeout, retry });
  }
  if (o.threads !== undefined) throw new ConfigError('--threads goes with --gguf.');
  if (!o.url) {
    throw new ConfigError(
      'say which LLM to check: --url URL --model NAME for a server, or --gguf PATH for a local model file.',
    );
  }
  if (!/^https?:\/\/[^/]/.test(o.url))
    throw new ConfigError(
      `--url must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${o.url}".`,
    );
  if (!o.model)
    throw new ConfigError(
      `--url needs --model NAME; the server lists its models at ${o.url.replace(/\/$/, '')}/models.`,
    );
  return new OpenAiClient({
    baseURL: o.url,
    model: o.model,
    apiKey: o.apiKey,
    timeoutMs: o.timeout,
    retry,
  });
}
