/**
 * Any Vercel AI SDK language model (Anthropic, Google, Bedrock, Azure, Mistral, … through their
 * `@ai-sdk/*` provider packages) as an {@link LlmClient}. The `ai` package is a peer dependency
 * (version 6, the last for Node 20), imported on the first call, so dreamgym loads without it.
 */
import type { LanguageModel } from 'ai';
import type { BackendAnswer, BackendRequest, ChatBackend } from './backend.ts';
import type { FinishReason } from './client.ts';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmBackendMissingError,
  LlmBadRequestError,
  LlmConnectionError,
  LlmError,
  LlmModelNotFoundError,
  LlmRateLimitError,
  LlmRequestError,
  LlmServerError,
} from './errors.ts';
import { retryAfterMs } from './openai-connection.ts';
import { type ResilientClientOptions, ResilientLlmClient } from './resilient-client.ts';

type AiSdk = typeof import('ai');

/** The AI SDK model to call, and the shared client settings (retries, limits, cache, prices). */
export interface AiSdkClientOptions extends ResilientClientOptions {
  /** A model from any AI SDK provider, e.g. `anthropic('claude-…')` from `@ai-sdk/anthropic`. */
  model: LanguageModel;
  /** Passed to the provider as `providerOptions` (reasoning effort, safety settings, …). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

/**
 * An AI SDK language model as an {@link LlmClient}, with the timeouts, retries, repair round,
 * cache and accounting every backend shares (the SDK's own retries are off).
 */
export class AiSdkClient extends ResilientLlmClient {
  constructor(options: AiSdkClientOptions) {
    super(new AiSdkBackend(options), options);
  }
}

/**
 * One `generateText` call. A request with a schema asks for it through the SDK's structured
 * output (`Output.object` over the JSON Schema); an answer the SDK cannot parse is passed on as
 * text, so the shared client validates and repairs it as for every other backend.
 */
export class AiSdkBackend implements ChatBackend {
  readonly kind = 'ai-sdk';
  readonly server: string;
  readonly model: string;
  private sdk: Promise<AiSdk> | undefined;

  constructor(private readonly options: AiSdkClientOptions) {
    const model = options.model;
    if (typeof model === 'string') {
      this.server = 'AI SDK gateway';
      this.model = model;
    } else {
      this.server = `AI SDK provider ${model.provider}`;
      this.model = `${model.provider}/${model.modelId}`;
    }
  }

  async complete(request: BackendRequest): Promise<BackendAnswer> {
    const ai = await this.load();
    const { responseSchema } = request;
    try {
      const result = await ai.generateText({
        model: this.options.model,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        // Our system messages are our own prompts, never user input: no injection warning.
        allowSystemInMessages: true,
        maxRetries: 0,
        abortSignal: request.signal,
        ...(request.temperature !== undefined && { temperature: request.temperature }),
        ...(request.topP !== undefined && { topP: request.topP }),
        ...(request.maxTokens !== undefined && { maxOutputTokens: request.maxTokens }),
        ...(request.stop && { stopSequences: request.stop }),
        ...(request.seed !== undefined && { seed: request.seed }),
        ...(this.options.providerOptions && {
          providerOptions: this.options.providerOptions as never,
        }),
        ...(responseSchema && {
          output: ai.Output.object({
            schema: ai.jsonSchema(responseSchema.schema as never),
            name: responseSchema.name,
          }),
        }),
      });
      return {
        text: result.text,
        finishReason: finishReason(result.finishReason),
        usage: usage(result.usage),
        warnings: (result.warnings ?? []).map(warningText),
      };
    } catch (error) {
      if (ai.NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
        return {
          text: error.text,
          finishReason: finishReason(error.finishReason),
          usage: usage(error.usage),
        };
      }
      throw this.llmError(ai, error, request.signal);
    }
  }

  private load(): Promise<AiSdk> {
    this.sdk ??= import('ai').catch(() => {
      this.sdk = undefined;
      throw new LlmBackendMissingError(
        'ai',
        'the "ai" package (the Vercel AI SDK, version 6) is not installed, so AI SDK models cannot be called. Run "npm install ai@6" beside your provider package (e.g. @ai-sdk/anthropic), or use OpenAiClient for OpenAI-compatible servers.',
      );
    });
    return this.sdk;
  }

  /**
   * The SDK's failures as the `LlmError`s the shared client knows how to retry or report, with
   * fixes that fit a provider (not an OpenAI-compatible URL). Retryable: 429, 408, 409, 5xx,
   * anything the provider marks retryable, and failed connections; not retryable: other 4xx and
   * the SDK's request and setup errors (a missing API key, an option the model refuses).
   */
  private llmError(ai: AiSdk, error: unknown, signal: AbortSignal): LlmError {
    if (error instanceof LlmError) return error;
    if (signal.aborted) return new LlmAbortedError(this.server);
    const server = this.server;
    if (ai.APICallError.isInstance(error)) {
      const status = error.statusCode;
      const detail = error.responseBody?.slice(0, 500) || error.message;
      const mapped =
        status === undefined
          ? new LlmConnectionError(server, error.message, CONNECTION_FIX)
          : status === 429
            ? new LlmRateLimitError(
                server,
                retryAfterMs(new Headers(error.responseHeaders)),
                detail,
              )
            : status === 401 || status === 403
              ? new LlmAuthError(server, status, detail, AUTH_FIX)
              : status === 404
                ? new LlmModelNotFoundError(server, this.model, undefined, NOT_FOUND_FIX)
                : status >= 500 || status === 408 || status === 409 || error.isRetryable
                  ? new LlmServerError(server, status, detail)
                  : new LlmBadRequestError(server, status, detail);
      mapped.cause = error;
      return mapped;
    }
    if (ai.LoadAPIKeyError.isInstance(error) || ai.LoadSettingError.isInstance(error))
      return new LlmRequestError(`${server}: ${error.message}`, { cause: error });
    if (
      ai.InvalidArgumentError.isInstance(error) ||
      ai.InvalidPromptError.isInstance(error) ||
      ai.UnsupportedFunctionalityError.isInstance(error)
    ) {
      return new LlmRequestError(
        `${server}: the AI SDK refused the request: ${error.message.replace(/\.$/, '')}. Drop or change the option it names.`,
        { cause: error },
      );
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return new LlmError(`${server}: unexpected error from the AI SDK: ${message}`, {
      cause: error,
    });
  }
}

const AUTH_FIX =
  'Check the API key the provider was built with (its apiKey option or its environment variable, e.g. ANTHROPIC_API_KEY for @ai-sdk/anthropic).';
const NOT_FOUND_FIX =
  "Check the model id against the provider's model list, and the provider's baseURL if you set one.";
const CONNECTION_FIX = "Check the network, and the provider's baseURL if you set one.";

function finishReason(reason: string | undefined): FinishReason {
  if (reason === 'stop' || reason === 'length' || reason === 'content-filter') return reason;
  return 'other';
}

function usage(u: { inputTokens?: number; outputTokens?: number } | undefined) {
  return { promptTokens: u?.inputTokens ?? 0, completionTokens: u?.outputTokens ?? 0 };
}

function warningText(warning: {
  type: string;
  feature?: string;
  details?: string;
  message?: string;
}) {
  const what = warning.feature ?? warning.message ?? warning.type;
  return `${warning.type}: ${what}${warning.details ? ` (${warning.details})` : ''}`;
}
