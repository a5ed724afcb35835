/**
 * The flags of `--policy llm`, shared by `eval`, `collect` and `export-rl`: which server and
 * model, how to sample, and the prompt format (which `export-rl` also uses to write prompts for
 * trajectories of other policies).
 */
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../core/errors.ts';
import { OpenAiClient } from '../llm/openai-client.ts';
import type { LlmPolicyOptions } from '../policy/llm/llm-policy.ts';
import type { PromptOptions } from '../policy/llm/prompt.ts';
import { intOption } from './options.ts';

export interface LlmPolicyFlags {
  policy: string;
  llmUrl?: string;
  llmModel?: string;
  apiKey?: string;
  llmTemperature?: number;
  llmMaxTokens?: number;
  historyWindow?: number;
  llmStructured?: boolean;
}

/** Adds the `--policy llm` flags; `defaultTemperature` is the command's (0 to evaluate, 1 to explore). */
export function addLlmPolicyOptions(command: Command, defaultTemperature: number): Command {
  return command
    .option('--llm-url <url>', 'llm policy: base URL of an OpenAI-compatible server, with /v1')
    .option('--llm-model <name>', 'llm policy: the model, as the server names it')
    .option('--api-key <key>', 'llm policy: API key (default: env OPENAI_API_KEY, else none)')
    .option(
      '--llm-temperature <t>',
      `llm policy: sampling temperature (default ${defaultTemperature})`,
      temperatureOption,
    )
    .option('--llm-max-tokens <n>', 'llm policy: answer length limit (default 512)', intOption(1))
    .option(
      '--history-window <n>',
      'llm prompts: earlier steps shown with each decision (default 3)',
      intOption(0),
    )
    .option('--llm-structured', 'llm prompts: answers as JSON {thought, action} with a schema');
}

/** The prompt format the flags ask for. */
export function promptOptionsFromFlags(o: LlmPolicyFlags): PromptOptions {
  return {
    ...(o.historyWindow !== undefined && { historyWindow: o.historyWindow }),
    ...(o.llmStructured && { structured: true }),
  };
}

/**
 * The llm policy's settings when `--policy llm`, else undefined. LLM flags given to another
 * policy are refused rather than ignored, so a typo in `--policy` cannot go unnoticed; prompt
 * flags are refused too unless `promptFlagsAlone` (export-rl writes prompts for any policy).
 */
export function llmPolicyFromFlags(
  o: LlmPolicyFlags,
  {
    defaultTemperature,
    promptFlagsAlone = false,
  }: { defaultTemperature: number; promptFlagsAlone?: boolean },
): LlmPolicyOptions | undefined {
  if (o.policy !== 'llm') {
    const given = [
      ['--llm-url', o.llmUrl],
      ['--llm-model', o.llmModel],
      ['--api-key', o.apiKey],
      ['--llm-temperature', o.llmTemperature],
      ['--llm-max-tokens', o.llmMaxTokens],
      ...(promptFlagsAlone
        ? []
        : [
            ['--history-window', o.historyWindow],
            ['--llm-structured', o.llmStructured],
          ]),
    ].flatMap(([flag, value]) => (value === undefined ? [] : [flag]));
    if (given.length > 0)
      throw new ConfigError(
        `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} only to --policy llm, not "${o.policy}".`,
      );
    return undefined;
  }
  if (!o.llmUrl || !o.llmModel)
    throw new ConfigError(
      '--policy llm needs --llm-url URL --llm-model NAME, e.g. --llm-url http://127.0.0.1:8000/v1 --llm-model Qwen/Qwen2.5-7B-Instruct.',
    );
  if (!/^https?:\/\/[^/]/.test(o.llmUrl))
    throw new ConfigError(
      `--llm-url must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${o.llmUrl}".`,
    );
  return {
    llm: new OpenAiClient({ baseURL: o.llmUrl, model: o.llmModel, apiKey: o.apiKey }),
    temperature: o.llmTemperature ?? defaultTemperature,
    ...(o.llmMaxTokens !== undefined && { maxTokens: o.llmMaxTokens }),
    ...promptOptionsFromFlags(o),
  };
}

function temperatureOption(value: string): number {
  const t = Number(value);
  if (!(t >= 0 && t <= 2))
    throw new InvalidArgumentError(`expected a number from 0 to 2, got "${value}".`);
  return t;
}
