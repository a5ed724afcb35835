/**
 * The one interface the experience model, the LLM policy and the task generator use to talk to
 * an LLM. Backends (an OpenAI-compatible server, an embedded llama.cpp) implement it through
 * `ResilientLlmClient`; `MockLlm` implements it for tests.
 */
import type { z } from 'zod';
import type { LlmStatsSnapshot, TokenUsage } from './stats.ts';

export type { TokenUsage };

/** Who speaks a chat message. */
export type ChatRole = 'system' | 'user' | 'assistant';

/** One message of a chat. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Sampling options. Unset ones take the backend's defaults. */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  /** Upper bound on the answer's length in tokens. */
  maxTokens?: number;
  /** Strings that end the answer when generated (not included in it). */
  stop?: string[];
  /** Sampling seed, for backends that honour one (vLLM, llama.cpp, OpenAI's best effort). */
  seed?: number;
  /** Ask for per-token log-probabilities; backends that cannot give them return none. */
  logprobs?: boolean;
}

export interface LlmRequest<T = undefined> extends SamplingOptions {
  messages: ChatMessage[];
  /**
   * The answer must be JSON matching this schema: sent to the backend as JSON Schema, and the
   * parsed, validated value comes back as `json`. An unusable answer gets one repair round, then
   * fails with `LlmOutputError`.
   */
  schema?: z.ZodType<T>;
  /** The schema's name where the backend wants one (OpenAI's `json_schema.name`). Default 'answer'. */
  schemaName?: string;
  /** Aborts the call, including its retries and back-off waits. */
  signal?: AbortSignal;
}

/** Why the model stopped: its own end or a stop string, the token limit, or anything else. */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'other';

/** A generated token and its log-probability. */
export interface TokenLogprob {
  token: string;
  logprob: number;
}

/** An LLM's answer with its accounting: tokens, latency, attempts, repairs and cache hits. */
export interface LlmResponse<T = undefined> {
  text: string;
  /** The parsed, schema-valid answer when the request had a schema; `undefined` otherwise. */
  json: T;
  finishReason: FinishReason;
  /** Tokens spent on this answer, repair round included (a cached answer's original usage). */
  usage: TokenUsage;
  /** Wall time of the call, retries and repair included. */
  latencyMs: number;
  /** Requests sent for this answer: 1 plus retries plus the repair round; 0 when cached. */
  attempts: number;
  /** Whether the answer came from the repair round. */
  repaired: boolean;
  /** Whether the answer came from the response cache. */
  cached: boolean;
  logprobs?: TokenLogprob[];
  /** Recoverable problems worth knowing (e.g. the server refused json_schema; we fell back). */
  warnings: string[];
}

/** What the experience model, the LLM policy, task generators and judges call an LLM through. */
export interface LlmClient {
  /** Names the backend and model, e.g. `openai:qwen2.5-7b` or `llama-cpp:tiny.gguf`. */
  readonly id: string;
  /**
   * Sends a chat request: retried, limited and accounted; parsed and validated when it has a
   * schema.
   */
  chat<T = undefined>(request: LlmRequest<T>): Promise<LlmResponse<T>>;
  /** This client's counters: calls, retries, failures, repairs, cache hits, tokens, cost, latency. */
  stats(): LlmStatsSnapshot;
}
