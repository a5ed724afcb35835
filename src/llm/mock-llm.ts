import type { LlmClient, LlmRequest, LlmResponse } from './client.ts';
import { LlmOutputError } from './errors.ts';
import { LlmStats, type LlmStatsSnapshot } from './stats.ts';
import { checkAnswer } from './structured.ts';

/**
 * One scripted answer: a string is the model's text as is; an Error is thrown (simulate
 * `new LlmTimeoutError(...)` or `new LlmOutputError(...)` to test a caller's failure handling);
 * anything else is sent as its JSON.
 */
export type MockAnswer = string | Error | number | boolean | null | object;

/** The mock's scripted answers. */
export interface MockLlmOptions {
  /** Answers in call order, or a function of the request and its 0-based index. */
  answers:
    | MockAnswer[]
    | ((request: LlmRequest<unknown>, index: number) => MockAnswer | Promise<MockAnswer>);
  /** Default 'mock'. */
  id?: string;
}

/**
 * A test double for {@link LlmClient}: answers from a list or a function and records every
 * request. Answers to schema requests are validated like a real backend's, failing with
 * {@link LlmOutputError} (there is no repair round: script the answer you want). Usage is zero.
 */
export class MockLlm implements LlmClient {
  readonly id: string;
  /** Every request received, in order. */
  readonly requests: LlmRequest<unknown>[] = [];
  private readonly counters = new LlmStats();

  constructor(private readonly options: MockLlmOptions) {
    this.id = options.id ?? 'mock';
  }

  async chat<T = undefined>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    const index = this.requests.length;
    this.requests.push(request as LlmRequest<unknown>);
    this.counters.count('calls');
    this.counters.count('attempts');
    const answer = await this.answerFor(request as LlmRequest<unknown>, index);
    if (answer instanceof Error) {
      this.counters.count('failures');
      throw answer;
    }
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    let json: T | undefined;
    if (request.schema) {
      const check = checkAnswer(text, 'stop', request.schema);
      if (!check.ok) {
        this.counters.count('failures');
        throw new LlmOutputError(this.id, check.problem, check.detail, text);
      }
      json = check.value;
    }
    this.counters.addLatency(0);
    return {
      text,
      json: json as T,
      finishReason: 'stop',
      usage: { promptTokens: 0, completionTokens: 0 },
      latencyMs: 0,
      attempts: 1,
      repaired: false,
      cached: false,
      warnings: [],
    };
  }

  stats(): LlmStatsSnapshot {
    return this.counters.snapshot();
  }

  private answerFor(request: LlmRequest<unknown>, index: number): MockAnswer | Promise<MockAnswer> {
    const { answers } = this.options;
    if (typeof answers === 'function') return answers(request, index);
    if (index >= answers.length) {
      // A plain Error on purpose: a test that runs out of answers is wrong, and code under test
      // that catches LlmError must not swallow that.
      throw new Error(
        `MockLlm: request #${index + 1} but only ${answers.length} answers were scripted; add answers or pass a function.`,
      );
    }
    return answers[index] as MockAnswer;
  }
}
