import type { BackendAnswer, BackendRequest, ChatBackend } from './backend.ts';
import type { CachedAnswer, ResponseCache } from './cache.ts';
import { hashRequest } from './cache.ts';
import type { ChatMessage, LlmClient, LlmRequest, LlmResponse, TokenUsage } from './client.ts';
import { withDeadline } from './deadline.ts';
import { LlmError, LlmOutputError, LlmRequestError } from './errors.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import { repairConversation } from './repair.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry.ts';
import type { LlmStatsSnapshot, TokenPrices } from './stats.ts';
import { globalLlmStats, LlmStats } from './stats.ts';
import { checkAnswer, toJsonSchema } from './structured.ts';

/** Retries, timeouts, concurrency, cache and accounting around a backend. */
export interface ResilientClientOptions {
  /** Deadline of each request, ms. Default 60 000. */
  timeoutMs?: number;
  /** Retries of timeouts, 429s, 5xx and dropped connections. Defaults: {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** Requests in flight at once. Default 8. Ignored when `limiter` is given. */
  maxConcurrency?: number;
  /** A limiter shared with other clients of the same server. */
  limiter?: ConcurrencyLimiter;
  /** Stores answers by request for reproducible reruns. Off by default. */
  cache?: ResponseCache;
  /** Token prices, for the cost counter. */
  prices?: TokenPrices;
  /** Where this client's counters are also added. Default {@link globalLlmStats}. */
  parentStats?: LlmStats;
}

/**
 * The runtime shared by all backends: cache lookup, concurrency limit, per-request deadline,
 * retries with back-off, structured-output validation with one repair round, and accounting.
 * Every failure leaves as an `LlmError`, so a rollout can always turn it into a truncation.
 *
 * Cache keys: at temperature 0 the answer is a function of the request, so repeats share one
 * entry. Otherwise the n-th identical request of a client maps to the n-th cached answer: a rerun
 * replays the same sequence, while a group of identical rollouts still gets distinct samples.
 */
export class ResilientLlmClient implements LlmClient {
  readonly id: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly limiter: ConcurrencyLimiter;
  private readonly cache: ResponseCache | undefined;
  private readonly prices: TokenPrices | undefined;
  private readonly counters: LlmStats;
  private readonly occurrences = new Map<string, number>();

  constructor(
    protected readonly backend: ChatBackend,
    options: ResilientClientOptions = {},
  ) {
    this.id = `${backend.kind}:${backend.model}`;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.limiter = options.limiter ?? new ConcurrencyLimiter(options.maxConcurrency ?? 8);
    this.cache = options.cache;
    this.prices = options.prices;
    this.counters = new LlmStats(options.parentStats ?? globalLlmStats);
  }

  stats(): LlmStatsSnapshot {
    return this.counters.snapshot();
  }

  async chat<T = undefined>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    try {
      return await this.chatOnce(request);
    } catch (error) {
      throw asLlmError(error, this.backend.server);
    }
  }

  /** Frees the backend's resources (a loaded model). */
  async close(): Promise<void> {
    await this.backend.close?.();
  }

  private async chatOnce<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    const started = performance.now();
    const problem = requestProblem(request);
    if (problem) throw new LlmRequestError(`${this.backend.server}: bad request: ${problem}.`);
    const responseSchema = request.schema && {
      name: request.schemaName ?? 'answer',
      schema: toJsonSchema(request.schema),
    };
    const key = this.cache && this.cacheKey(request, responseSchema);
    if (this.cache && key) {
      const hit = await this.cache.get(key);
      const response = hit && fromCache(hit, request, started);
      if (response) {
        this.counters.count('cacheHits');
        return response;
      }
    }
    this.counters.count('calls');
    try {
      const response = await this.answer(request, responseSchema, started);
      this.counters.addLatency(response.latencyMs);
      if (this.cache && key) await this.cache.set(key, toCached(response));
      return response;
    } catch (error) {
      this.counters.count('failures');
      throw error;
    }
  }

  /** Sends the request, then repairs a structured answer once if it is unusable. */
  private async answer<T>(
    request: LlmRequest<T>,
    responseSchema: BackendRequest['responseSchema'],
    started: number,
  ): Promise<LlmResponse<T>> {
    let attempts = 0;
    const send = (messages: ChatMessage[]) =>
      this.send(request, messages, responseSchema, () => {
        attempts++;
        this.counters.count('attempts');
      });
    const answers: BackendAnswer[] = [];
    let json: T | undefined;
    try {
      answers.push(await send(request.messages));
      if (request.schema) {
        const first = answers[0] as BackendAnswer;
        let check = checkAnswer(first.text, first.finishReason, request.schema);
        if (!check.ok) {
          this.counters.count('repairs');
          const messages = repairConversation(
            request.messages,
            first.text,
            check.problem,
            check.detail,
          );
          const second = await send(messages);
          answers.push(second);
          check = checkAnswer(second.text, second.finishReason, request.schema);
          if (!check.ok)
            throw new LlmOutputError(this.backend.server, check.problem, check.detail, second.text);
        }
        json = check.value;
      }
    } catch (error) {
      if (error instanceof LlmError) error.attempts = attempts;
      throw error;
    }
    const final = answers.at(-1) as BackendAnswer;
    return {
      text: final.text,
      json: json as T,
      finishReason: final.finishReason,
      usage: answers.map((a) => a.usage).reduce(addUsage),
      latencyMs: performance.now() - started,
      attempts,
      repaired: answers.length > 1,
      cached: false,
      ...(final.logprobs && { logprobs: final.logprobs }),
      warnings: answers.flatMap((a) => a.warnings ?? []),
    };
  }

  /** One backend request through the concurrency limit, its deadline and the retry loop. */
  private async send(
    request: LlmRequest<unknown>,
    messages: ChatMessage[],
    responseSchema: BackendRequest['responseSchema'],
    onAttempt: () => void,
  ): Promise<BackendAnswer> {
    const { server } = this.backend;
    const { signal } = request;
    const attempt = () =>
      this.limiter.run(
        () => {
          onAttempt();
          return withDeadline(
            (deadline) =>
              this.backend.complete({
                ...sampling(request),
                messages,
                responseSchema,
                signal: deadline,
              }),
            { timeoutMs: this.timeoutMs, signal, server },
          );
        },
        signal,
        server,
      );
    const answer = await withRetries(attempt, this.retry, {
      signal,
      server,
      onRetry: () => this.counters.count('retries'),
    });
    this.counters.addUsage(answer.usage, this.prices);
    return answer;
  }

  private cacheKey<T>(request: LlmRequest<T>, schema: BackendRequest['responseSchema']): string {
    const base = hashRequest({
      model: this.backend.model,
      messages: request.messages,
      ...sampling(request),
      schema,
    });
    if (request.temperature === 0) return base;
    const n = this.occurrences.get(base) ?? 0;
    this.occurrences.set(base, n + 1);
    return `${base}-${n}`;
  }
}

function sampling(request: LlmRequest<unknown>) {
  const { temperature, topP, maxTokens, stop, seed, logprobs } = request;
  return { temperature, topP, maxTokens, stop, seed, logprobs };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
  };
}

function toCached(response: LlmResponse<unknown>): CachedAnswer {
  const { text, finishReason, usage, logprobs } = response;
  return { text, finishReason, usage, ...(logprobs && { logprobs }) };
}

/** A response rebuilt from the cache, or undefined if the entry no longer fits the schema. */
function fromCache<T>(
  hit: CachedAnswer,
  request: LlmRequest<T>,
  started: number,
): LlmResponse<T> | undefined {
  let json: T | undefined;
  if (request.schema) {
    const check = checkAnswer(hit.text, hit.finishReason, request.schema);
    if (!check.ok) return undefined;
    json = check.value;
  }
  return {
    ...hit,
    json: json as T,
    latencyMs: performance.now() - started,
    attempts: 0,
    repaired: false,
    cached: true,
    warnings: [],
  };
}

const ROLES = new Set(['system', 'user', 'assistant']);

/** What is wrong with a request, in words, or undefined if nothing is. */
function requestProblem(request: LlmRequest<unknown>): string | undefined {
  const { messages, maxTokens, temperature, topP } = request;
  if (!Array.isArray(messages) || messages.length === 0)
    return 'messages is empty; send at least one user message';
  const bad = messages.findIndex((m) => !ROLES.has(m?.role) || typeof m?.content !== 'string');
  if (bad >= 0)
    return `messages[${bad}] needs a role (system, user or assistant) and string content`;
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    return `maxTokens must be a positive integer, got ${maxTokens}`;
  if (temperature !== undefined && !(temperature >= 0))
    return `temperature must be ≥ 0, got ${temperature}`;
  if (topP !== undefined && !(topP > 0 && topP <= 1)) return `topP must be in (0, 1], got ${topP}`;
  return undefined;
}

/** Anything that escapes as a non-LlmError is a bug somewhere; still, it must not crash a rollout. */
function asLlmError(error: unknown, server: string): LlmError {
  if (error instanceof LlmError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError(
    `${server}: unexpected error: ${message}. This is a bug in dreamgym or the backend; please report it with this message.`,
    { cause: error },
  );
}
