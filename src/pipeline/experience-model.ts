import { ConfigError } from '../core/errors.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import { LlmExperienceModel } from '../experience/llm/llm-model.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import { LlamaCppClient } from '../llm/llama-cpp-client.ts';
import { OpenAiClient } from '../llm/openai-client.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { RunConfig } from './config.ts';

/** The configured experience model: LLM-free (learnt from the buffer) or the reasoning LLM. */
export async function makeExperienceModel(
  config: RunConfig['experienceModel'],
  env: string,
  buffer: ReplayBuffer,
): Promise<ExperienceModel> {
  if (config.kind === 'llm-free') return llmFreeModel(env, buffer);
  const llm = config.llm;
  if (llm?.gguf)
    return new LlmExperienceModel({
      llm: await LlamaCppClient.load({ gguf: llm.gguf, timeoutMs: llm.timeoutMs }),
    });
  if (llm?.url && llm.model) {
    const client = new OpenAiClient({
      baseURL: llm.url,
      model: llm.model,
      timeoutMs: llm.timeoutMs,
      maxConcurrency: llm.maxConcurrency,
      ...(llm.apiKey !== undefined && { apiKey: llm.apiKey }),
    });
    return new LlmExperienceModel({ llm: client });
  }
  throw new ConfigError('experienceModel.llm needs url and model, or gguf.');
}
