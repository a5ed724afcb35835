import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { type AnnotateProgress, annotateBuffer } from '../../experience/llm/annotate.ts';
import { OpenAiClient } from '../../llm/openai-client.ts';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { CliExit } from '../cli-exit.ts';
import { intOption } from '../options.ts';

const EXAMPLES = `
Examples:
  dreamgym annotate --db data/buffer.db --llm-url http://127.0.0.1:8000/v1 --llm-model Qwen/Qwen2.5-72B-Instruct
  dreamgym annotate --db data/buffer.db --llm-url https://api.openai.com/v1 --llm-model gpt-4o --api-key sk-… --limit 1000

Stop it at any time and run it again: transitions that have teacher reasoning are skipped.`;

interface AnnotateFlags {
  db: string;
  llmUrl: string;
  llmModel: string;
  apiKey?: string;
  env?: string;
  limit?: number;
  concurrency: number;
}

export function annotateCommand(program: Command): void {
  program
    .command('annotate')
    .description(
      "ask a teacher LLM why each real transition in the buffer happened and store its reasoning (the experience model's SFT data)",
    )
    .requiredOption('--db <path>', 'buffer database file')
    .requiredOption('--llm-url <url>', 'base URL of an OpenAI-compatible server, with /v1')
    .requiredOption('--llm-model <name>', 'the teacher model, as the server names it')
    .option('--api-key <key>', 'API key (default: env OPENAI_API_KEY, else none)')
    .option('--env <name>', 'only transitions of this env family')
    .option('--limit <n>', 'send at most n transitions to the teacher in this run', intOption(1))
    .option('--concurrency <n>', 'teacher requests in flight at once', intOption(1, 512), 4)
    .addHelpText('after', EXAMPLES)
    .action(async (o: AnnotateFlags) => {
      if (!existsSync(o.db))
        throw new ConfigError(
          `no buffer at ${o.db}; fill one with "dreamgym buffer import FILE --db ${o.db}" first.`,
        );
      if (!/^https?:\/\/[^/]/.test(o.llmUrl))
        throw new ConfigError(
          `--llm-url must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${o.llmUrl}".`,
        );
      const llm = new OpenAiClient({
        baseURL: o.llmUrl,
        model: o.llmModel,
        apiKey: o.apiKey,
        maxConcurrency: o.concurrency,
      });
      const buffer = await ReplayBuffer.open({ path: o.db });
      const started = performance.now();
      let lastPrint = 0;
      let stoppedEarly = false;
      try {
        const result = await annotateBuffer({
          buffer,
          llm,
          env: o.env,
          limit: o.limit,
          concurrency: o.concurrency,
          onProgress: (p) => {
            if (performance.now() - lastPrint < 2000) return;
            lastPrint = performance.now();
            console.error(progressLine(p, started));
          },
        });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        console.log(
          `annotated ${result.annotated} transitions in ${seconds} s; ${result.alreadyAnnotated} already had teacher reasoning; ${result.failed} failed (left for a rerun)`,
        );
        if (result.stoppedEarly) {
          console.log(
            `stopped early: ${result.stoppedEarly}. Last error: ${result.lastError}\nCheck the server with "dreamgym llm check --url ${o.llmUrl} --model ${o.llmModel}", then run this again to resume.`,
          );
          stoppedEarly = true;
        } else if (result.failed > 0) console.log(`last error: ${result.lastError}`);
        console.log(
          `reasoning stored in ${o.db}; next: dreamgym export-sft --db ${o.db} --out sft.jsonl`,
        );
      } finally {
        await buffer.close();
      }
      if (stoppedEarly) throw new CliExit(1);
    });
}

function progressLine(p: AnnotateProgress, started: number): string {
  const rate = p.annotated / ((performance.now() - started) / 1000);
  return `annotate: ${p.visited}/${p.total} looked at · ${p.annotated} annotated (${rate.toFixed(1)}/s) · ${p.alreadyAnnotated} had reasoning · ${p.failed} failed`;
}
