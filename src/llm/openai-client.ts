import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { BackendAnswer, BackendRequest, ChatBackend } from './backend.ts';
import type { ChatMessage, FinishReason } from './client.ts';
import { LlmServerError } from './errors.ts';
import {
  connectOpenAi,
  errorDetail,
  fromOpenAiError,
  type OpenAiConnectionOptions,
} from './openai-connection.ts';
import { type ResilientClientOptions, ResilientLlmClient } from './resilient-client.ts';
import type { JsonSchema } from './structured.ts';

/** How structured output is asked for. */
export type StructuredOutputMode = 'json_schema' | 'json_object';

export interface OpenAiBackendOptions extends OpenAiConnectionOptions {
  /** The model name the server knows, e.g. `Qwen/Qwen2.5-7B-Instruct` or `gpt-4o-mini`. */
  model: string;
  /**
   * Mode to try first. `json_schema` (default) lets the server enforce the schema; a server that
   * refuses it is switched to `json_object` plus our validation, once for this client.
   */
  structuredOutput?: StructuredOutputMode;
  /** `strict` flag of json_schema requests. Default true (OpenAI then enforces the schema exactly). */
  strictSchema?: boolean;
}

/**
 * An OpenAI-compatible server, model and the shared client settings (retries, limits, cache,
 * prices).
 */
export interface OpenAiClientOptions extends OpenAiBackendOptions, ResilientClientOptions {}

/**
 * Any OpenAI-compatible chat server (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs) as an
 * {@link LlmClient}, with timeouts, retries, repair and accounting from {@link ResilientLlmClient}.
 */
export class OpenAiClient extends ResilientLlmClient {
  constructor(options: OpenAiClientOptions) {
    super(new OpenAiBackend(options), options);
  }
}

/** One chat completion request to an OpenAI-compatible server. */
export class OpenAiBackend implements ChatBackend {
  readonly kind = 'openai';
  readonly server: string;
  readonly model: string;
  private readonly sdk: OpenAI;
  private readonly strict: boolean;
  private mode: StructuredOutputMode;

  constructor(options: OpenAiBackendOptions) {
    this.sdk = connectOpenAi(options);
    this.server = this.sdk.baseURL;
    this.model = options.model;
    this.mode = options.structuredOutput ?? 'json_schema';
    this.strict = options.strictSchema ?? true;
  }

  async complete(request: BackendRequest): Promise<BackendAnswer> {
    const warnings: string[] = [];
    try {
      if (request.responseSchema && this.mode === 'json_schema') {
        try {
          return await this.send(request, 'json_schema');
        } catch (error) {
          if (!refusesJsonSchema(error)) throw error;
          this.mode = 'json_object';
          warnings.push(
            `${this.server} refused response_format json_schema (${errorDetail(error)}); this client now uses json_object mode with the schema in the prompt, and validates answers itself.`,
          );
        }
      }
      return { ...(await this.send(request, this.mode)), warnings };
    } catch (error) {
      throw fromOpenAiError(error, this.server, this.model, await this.modelsIfNotFound(error));
    }
  }

  private async send(request: BackendRequest, mode: StructuredOutputMode): Promise<BackendAnswer> {
    const { responseSchema } = request;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages:
        responseSchema && mode === 'json_object'
          ? withSchemaInstruction(request.messages, responseSchema.schema)
          : request.messages,
      temperature: request.temperature,
      top_p: request.topP,
      max_tokens: request.maxTokens,
      stop: request.stop,
      seed: request.seed,
      logprobs: request.logprobs,
    };
    if (responseSchema) {
      body.response_format =
        mode === 'json_schema'
          ? { type: 'json_schema', json_schema: { ...responseSchema, strict: this.strict } }
          : { type: 'json_object' };
    }
    const completion = await this.sdk.chat.completions.create(body, { signal: request.signal });
    const choice = completion.choices?.[0];
    if (!choice) throw new LlmServerError(this.server, 200, 'the answer has no choices');
    const logprobs = choice.logprobs?.content?.map((t) => ({ token: t.token, logprob: t.logprob }));
    return {
      text: choice.message?.content ?? '',
      finishReason: finishReason(choice.finish_reason),
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      },
      ...(logprobs && { logprobs }),
    };
  }

  /** On a 404, the server's model list, so the error can name the right model. */
  private async modelsIfNotFound(error: unknown): Promise<string[] | undefined> {
    if ((error as { status?: number }).status !== 404) return undefined;
    try {
      const page = await this.sdk.models.list({ signal: AbortSignal.timeout(5_000) });
      return page.data.map((m) => m.id);
    } catch {
      return undefined;
    }
  }
}

/** A 400/422 that names response_format or json_schema: the server does not do json_schema. */
function refusesJsonSchema(error: unknown): error is InstanceType<typeof OpenAI.APIError> {
  const { status, message } = error as { status?: number; message?: string };
  return (status === 400 || status === 422) && /json_schema|response_format/i.test(message ?? '');
}

/** json_object mode does not carry the schema, so the prompt must (and must say "JSON"). */
function withSchemaInstruction(messages: ChatMessage[], schema: JsonSchema): ChatMessage[] {
  const instruction = `Answer with only a JSON value that matches this JSON Schema:\n${JSON.stringify(schema)}`;
  const [first, ...rest] = messages;
  if (first?.role === 'system')
    return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...messages];
}

function finishReason(reason: string | null | undefined): FinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}
