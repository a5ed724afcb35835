import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { exportSft } from '../../experience/llm/sft-export.ts';
import { ReplayBuffer } from '../../replay/open-buffer.ts';
import { intOption } from '../options.ts';

const EXAMPLES = `
Examples:
  dreamgym export-sft --db data/buffer.db --out data/sft.jsonl
  dreamgym export-sft --db data/buffer.db --out data/webshop-sft.jsonl --env webshop --k 4

Each line is {"messages": [system, user, assistant]}: TRL's conversational format, also read
by axolotl (type: chat_template) and LLaMA-Factory (formatting: sharegpt, role/content tags).
Transitions without teacher reasoning (see "dreamgym annotate") are skipped unless
--allow-unannotated is given.`;

interface ExportFlags {
  db: string;
  out: string;
  env?: string;
  k: number;
  history: number;
  allowUnannotated?: boolean;
}

export function exportSftCommand(program: Command): void {
  program
    .command('export-sft')
    .description(
      "write the buffer's real transitions as chat-format SFT examples for an experience model",
    )
    .requiredOption('--db <path>', 'buffer database file')
    .requiredOption('--out <file>', 'output JSONL file')
    .option('--env <name>', 'only transitions of this env family')
    .option('--k <n>', 'demonstrations per prompt, as the synthetic env retrieves', intOption(0), 4)
    .option('--history <n>', 'steps of history per prompt, as the model runs with', intOption(0), 4)
    .option(
      '--allow-unannotated',
      'also export transitions without teacher reasoning, with a placeholder reasoning',
    )
    .addHelpText('after', EXAMPLES)
    .action(async (o: ExportFlags) => {
      if (!existsSync(o.db))
        throw new ConfigError(
          `no buffer at ${o.db}; fill one with "dreamgym buffer import FILE --db ${o.db}" first.`,
        );
      const buffer = await ReplayBuffer.open({ path: o.db });
      const started = performance.now();
      let lastPrint = 0;
      try {
        const result = await exportSft({
          buffer,
          out: o.out,
          env: o.env,
          k: o.k,
          historyWindow: o.history,
          allowUnannotated: o.allowUnannotated ?? false,
          onProgress: (p) => {
            if (performance.now() - lastPrint < 2000) return;
            lastPrint = performance.now();
            console.error(`export-sft: ${p.visited}/${p.total} transitions · ${p.written} written`);
          },
        });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const placeholder = result.unannotatedWritten
          ? ` (${result.unannotatedWritten} with placeholder reasoning)`
          : '';
        console.log(`wrote ${result.written} examples${placeholder} in ${seconds} s`);
        if (result.unannotatedSkipped > 0)
          console.log(
            `skipped ${result.unannotatedSkipped} transitions without reasoning: run "dreamgym annotate --db ${o.db} …" first, or pass --allow-unannotated`,
          );
        console.log(`examples: ${o.out}`);
      } finally {
        await buffer.close();
      }
    });
}
