import type { Rng } from '../../core/rng.ts';
import type { Observation } from '../../core/types.ts';
import type { ChatMessage, LlmClient } from '../../llm/client.ts';
import { LlmOutputError } from '../../llm/errors.ts';
import { PolicyOutputError } from '../errors.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';
import {
  type ParsedAnswer,
  parseStructuredAnswer,
  parseTextAnswer,
  StructuredAnswer,
} from './parse.ts';
import {
  decisionMessages,
  type PromptOptions,
  type ResolvedPromptOptions,
  resolvePromptOptions,
  retryMessage,
} from './prompt.ts';

/** The LLM, prompt and sampling settings of the LLM policy. */
export interface LlmPolicyOptions extends PromptOptions {
  /** The model that acts: any OpenAI-compatible server, a local GGUF model, or `MockLlm` in tests. */
  llm: LlmClient;
  /**
   * Sampling temperature. Default 1: a policy samples, so the episodes of a GRPO group differ.
   * Evaluate with 0.
   */
  temperature?: number;
  /** Answer length limit in tokens: a few sentences of thought and one action. Default 512. */
  maxTokens?: number;
}

/**
 * An LLM as a policy, ReAct-style: it is shown the task, its last steps, the observation and the
 * admissible actions (see `prompt.ts`), thinks, and names one action, which is matched against
 * the admissible ones (see `parse.ts`); the thought comes back as `reasoning`.
 *
 * An unusable answer gets one retry with the problem shown to the model. If that fails too, `act`
 * throws {@link PolicyOutputError} and `runEpisode` ends the episode as truncated
 * (`truncatedBy: 'policy-error'`) rather than playing an action the model did not choose: a
 * fallback action would hide the model's failures from evaluation and teach RL nothing true.
 * Errors reaching the model (`LlmError`s other than unusable output) propagate.
 *
 * There are no log-probabilities or values: external trainers recompute them (see
 * `dreamgym export-rl`).
 */
export class LlmPolicy implements Policy {
  readonly id: string;
  private readonly llm: LlmClient;
  private readonly prompt: ResolvedPromptOptions;
  private readonly sampling: { temperature: number; maxTokens: number };

  constructor(options: LlmPolicyOptions) {
    this.llm = options.llm;
    this.prompt = resolvePromptOptions(options);
    this.sampling = { temperature: options.temperature ?? 1, maxTokens: options.maxTokens ?? 512 };
    this.id = `llm(${options.llm.id}, t=${this.sampling.temperature})`;
  }

  async act(
    observation: Observation,
    { task, history, rng }: PolicyContext,
  ): Promise<PolicyAction> {
    const messages = decisionMessages(task, history, observation, this.prompt);
    let answer = await this.ask(messages, observation, rng);
    if (!answer.ok) {
      const retry: ChatMessage[] = [
        ...messages,
        { role: 'assistant', content: answer.text },
        { role: 'user', content: retryMessage(answer.problem, this.prompt) },
      ];
      answer = await this.ask(retry, observation, rng);
    }
    if (!answer.ok)
      throw new PolicyOutputError(this.id, answer.problem, answer.attemptedAction, answer.thought);
    return answer.thought === undefined
      ? { action: answer.action }
      : { action: answer.action, reasoning: answer.thought };
  }

  /** One request and its parsed answer, with the answer's text for a retry to quote. */
  private async ask(
    messages: ChatMessage[],
    observation: Observation,
    rng: Rng,
  ): Promise<ParsedAnswer & { text: string }> {
    // A seed per request: backends that honour one (vLLM, llama.cpp) then replay an episode exactly.
    const request = { messages, ...this.sampling, seed: rng.uint32() };
    if (!this.prompt.structured) {
      const { text } = await this.llm.chat(request);
      return { ...parseTextAnswer(text, observation.actions), text };
    }
    try {
      const { text, json } = await this.llm.chat({
        ...request,
        schema: StructuredAnswer,
        schemaName: 'action',
      });
      return { ...parseStructuredAnswer(json, observation.actions), text };
    } catch (error) {
      if (!(error instanceof LlmOutputError)) throw error;
      const problem = `it is not the JSON object asked for (${error.detail})`;
      return { ok: false, problem, attemptedAction: '', thought: undefined, text: error.text };
    }
  }
}
