/** Tokens spent on one answer, as the backend counted them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Prices in US dollars per million tokens, as providers quote them. */
export interface TokenPrices {
  promptPerMillion: number;
  completionPerMillion: number;
}

export interface LatencySummary {
  /** Sum over successful calls, ms. */
  sum: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** An LLM client's counters at one moment. */
export interface LlmStatsSnapshot {
  /** chat() calls that went to the backend (cache hits are not calls). */
  calls: number;
  /**
   * Requests sent: each call's first request, its retries and its repair round. (The one request
   * a server refuses json_schema on, before the client switches to json_object, is not counted.)
   */
  attempts: number;
  /** Requests sent again after a timeout, 429, 5xx or dropped connection. */
  retries: number;
  /** Repair rounds after an invalid or truncated structured answer. */
  repairs: number;
  /** Calls that ended in an error. */
  failures: number;
  /** Calls answered from the response cache. */
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  /** From the client's token prices; 0 when none are set. */
  costUsd: number;
  /** Wall time of successful calls (cache hits excluded). */
  latencyMs: LatencySummary;
}

/** The event counters of {@link LlmStatsSnapshot}. */
export type LlmCounter = 'calls' | 'attempts' | 'retries' | 'repairs' | 'failures' | 'cacheHits';

/**
 * Counters for one client, also added into a parent (by default {@link globalLlmStats}) so a
 * run can report totals over all its clients. Latencies are kept whole for exact percentiles:
 * 8 bytes a call is small next to the call itself.
 */
export class LlmStats {
  private counts: Record<LlmCounter, number> = {
    calls: 0,
    attempts: 0,
    retries: 0,
    repairs: 0,
    failures: 0,
    cacheHits: 0,
  };
  private tokens = { prompt: 0, completion: 0, costUsd: 0 };
  private latencies: number[] = [];

  constructor(private readonly parent?: LlmStats) {}

  /** Adds one to a counter. */
  count(counter: LlmCounter): void {
    this.counts[counter]++;
    this.parent?.count(counter);
  }

  /** Adds an answer's tokens, and their cost when prices are known. */
  addUsage(usage: TokenUsage, prices?: TokenPrices): void {
    this.tokens.prompt += usage.promptTokens;
    this.tokens.completion += usage.completionTokens;
    if (prices) {
      this.tokens.costUsd +=
        (usage.promptTokens * prices.promptPerMillion +
          usage.completionTokens * prices.completionPerMillion) /
        1e6;
    }
    this.parent?.addUsage(usage, prices);
  }

  /** Records a successful call's wall time. */
  addLatency(ms: number): void {
    this.latencies.push(ms);
    this.parent?.addLatency(ms);
  }

  /** The counters now, with latency percentiles. */
  snapshot(): LlmStatsSnapshot {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const sum = sorted.reduce((s, x) => s + x, 0);
    return {
      ...this.counts,
      promptTokens: this.tokens.prompt,
      completionTokens: this.tokens.completion,
      costUsd: this.tokens.costUsd,
      latencyMs: {
        sum,
        mean: sorted.length > 0 ? sum / sorted.length : 0,
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        max: sorted.at(-1) ?? 0,
      },
    };
  }

  /** Zeroes these counters (not the parent's). */
  reset(): void {
    for (const key of Object.keys(this.counts) as LlmCounter[]) this.counts[key] = 0;
    this.tokens = { prompt: 0, completion: 0, costUsd: 0 };
    this.latencies = [];
  }
}

/** Totals over every client in the process (each client adds into it unless told otherwise). */
export const globalLlmStats = new LlmStats();
