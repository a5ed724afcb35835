import { ConfigError } from '../core/errors.ts';
import { envEntry } from '../envs/registry.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import {
  envDescriptionFromBuffer,
  hasBuiltInDescription,
} from '../experience/llm/env-descriptions.ts';
import { LlmExperienceModel } from '../experience/llm/llm-model.ts';
import { llmFreeModel } from '../experience/llm-free.ts';
import type { LlmClient } from '../llm/client.ts';
import { LlamaCppClient } from '../llm/llama-cpp-client.ts';
import { OpenAiClient } from '../llm/openai-client.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import type { RunConfig } from './config.ts';

type LlmConfig = NonNullable<RunConfig['experienceModel']['llm']>;

/** The configured LLM: an OpenAI-compatible server, or a local GGUF model run by llama.cpp. */
export async function makeLlmClient(llm: LlmConfig): Promise<LlmClient> {
  if (llm.gguf) return LlamaCppClient.load({ gguf: llm.gguf, timeoutMs: llm.timeoutMs });
  if (llm.url && llm.model) {
    return new OpenAiClient({
      baseURL: llm.url,
      model: llm.model,
      timeoutMs: llm.timeoutMs,
      maxConcurrency: llm.maxConcurrency,
      ...(llm.apiKey !== undefined && { apiKey: llm.apiKey }),
    });
  }
  throw new ConfigError('experienceModel.llm needs url and model, or gguf.');
}

/**
 * The configured experience model: LLM-free (learnt from the buffer) or the reasoning LLM. The
 * LLM is told an env of no known family from its real episodes in the buffer and, for an env
 * whose entry lists its tools (an MCP server's), their signatures. `env` is a name `envEntry`
 * knows (resolved by `resolveEnvRef` for modules and server refs).
 */
export async function makeExperienceModel(
  config: RunConfig['experienceModel'],
  env: string,
  buffer: ReplayBuffer,
  llm?: LlmClient,
): Promise<ExperienceModel> {
  if (config.kind === 'llm-free') {
    return await llmFreeModel(env, buffer, { experience: config.model ?? 'auto' });
  }
  if (!config.llm && !llm)
    throw new ConfigError('experienceModel.llm needs url and model, or gguf.');
  // An env of no known family is described to the LLM from what its real episodes show, and
  // from its tools where its entry lists them (an MCP server's).
  const tools = hasBuiltInDescription(env) ? undefined : await envEntry(env).tools?.();
  const envDescription = hasBuiltInDescription(env)
    ? undefined
    : await envDescriptionFromBuffer(env, buffer, { ...(tools && { tools }) });
  return new LlmExperienceModel({
    llm: llm ?? (await makeLlmClient(config.llm as LlmConfig)),
    ...(envDescription !== undefined && { envDescription }),
    ...(config.llm?.samples !== undefined && { samples: config.llm.samples }),
  });
}
