import type {
  ChatMessage,
  FinishReason,
  SamplingOptions,
  TokenLogprob,
  TokenUsage,
} from './client.ts';
import type { JsonSchema } from './structured.ts';

/**
 * One attempt at a chat completion: what a backend implements. No retries, no timeouts, no
 * parsing, no accounting: `ResilientLlmClient` adds those the same way for every backend.
 * Failures must be thrown as `LlmError` subclasses, with `retryable` set where a retry may help.
 */
export interface ChatBackend {
  /** Short backend name, the first part of the client id: `openai`, `llama-cpp`. */
  readonly kind: string;
  /** Where requests go, for error messages: a base URL or a GGUF path. */
  readonly server: string;
  /** The model name; part of every cache key. */
  readonly model: string;
  /**
   * One attempt at the request; throws `LlmError`s, with `retryable` set where a retry may help.
   */
  complete(request: BackendRequest): Promise<BackendAnswer>;
  /** Frees what the backend holds (a loaded model); a no-op for HTTP backends. */
  close?(): Promise<void>;
}

export interface BackendRequest extends SamplingOptions {
  messages: ChatMessage[];
  /** Set when the answer must be JSON matching `schema`. */
  responseSchema?: { name: string; schema: JsonSchema };
  /** Fires on the request's deadline or the caller's abort. */
  signal: AbortSignal;
}

/** A backend's raw answer to one attempt. */
export interface BackendAnswer {
  text: string;
  finishReason: FinishReason;
  usage: TokenUsage;
  logprobs?: TokenLogprob[];
  /** Recoverable problems the backend worked around. */
  warnings?: string[];
}
