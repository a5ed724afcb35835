import { ConfigError } from '../../core/errors.ts';
import type { Observation, Task } from '../../core/types.ts';
import type { LlmClient } from '../../llm/client.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from '../experience-model.ts';
import {
  DirectAnswer,
  DirectAnswerWithActions,
  InitialAnswer,
  InitialAnswerWithActions,
  PredictionAnswer,
  PredictionAnswerWithActions,
  toObservation,
  toPrediction,
} from './answer.ts';
import { initialMessages, StartTemplates } from './initial-state.ts';
import {
  type PromptOptions,
  predictionMessages,
  type ResolvedPromptOptions,
  resolvePromptOptions,
} from './prompt.ts';

/** The LLM, prompt and sampling settings of the LLM experience model. */
export interface LlmExperienceModelOptions extends PromptOptions {
  /** The reasoning LLM: any server (vLLM, SGLang, Ollama, a hosted API) or a local GGUF model. */
  llm: LlmClient;
  /**
   * Sampling temperature. Default 0: an environment should answer the same step the same way
   * (rollouts differ through the policy), and identical requests then share one cache entry.
   * With `samples` above 1, default 1: the model's own spread, which the samples measure.
   */
  temperature?: number;
  /**
   * Predictions sampled per step (all at once) to tell the model's uncertainty by their
   * disagreement: the share of samples whose next state text, reward or termination differ
   * from the majority's, an unusable answer counting as one that differs; the majority's answer
   * is the prediction. Default 1: no uncertainty, one call a step. k multiplies the calls by k.
   * @default 1
   */
  samples?: number;
  /** Answer length limit in tokens: reasoning plus a full page and its actions. Default 2,048. */
  maxTokens?: number;
}

/**
 * DreamGym's reasoning experience model: an LLM shown the env's description, the task, the last
 * steps of the episode, the current state, the action and the most similar real transitions
 * reasons step by step, then predicts the next state, the reward and termination as
 * schema-checked JSON. The LLM layer repairs an invalid answer once and then throws
 * (`LlmOutputError`); the error propagates, and `SyntheticEnv` truncates the episode
 * (`truncatedBy: 'model-error'`). Rewards are clamped to the env's range and actions
 * de-duplicated after parsing. With `samples: k`, k answers are sampled and the majority's
 * returned, with their disagreement as its uncertainty.
 */
export class LlmExperienceModel implements ExperienceModel {
  readonly id: string;
  private readonly llm: LlmClient;
  private readonly prompt: ResolvedPromptOptions;
  private readonly sampling: { temperature: number; maxTokens: number };
  private readonly samples: number;
  private readonly templates = new StartTemplates();

  constructor(options: LlmExperienceModelOptions) {
    this.llm = options.llm;
    this.prompt = resolvePromptOptions(options);
    this.id = `llm/${options.llm.id}${this.prompt.reasoning ? '' : '/no-reasoning'}`;
    this.samples = options.samples ?? 1;
    if (!Number.isInteger(this.samples) || this.samples < 1)
      throw new ConfigError(`samples must be a whole number from 1, got ${options.samples}.`);
    if (this.samples > 1 && options.temperature === 0)
      throw new ConfigError(
        `samples: ${this.samples} at temperature 0 would sample one answer ${this.samples} times, which never disagree; set a temperature above 0 (1 by default with samples) or samples: 1.`,
      );
    this.sampling = {
      temperature: options.temperature ?? (this.samples > 1 ? 1 : 0),
      maxTokens: options.maxTokens ?? 2048,
    };
  }

  async initial(task: Task, demonstrations: readonly RetrievedTransition[]): Promise<Observation> {
    const starts = demonstrations.filter((d) => d.t === 0);
    const known = this.templates.known(task, starts);
    if (known) return known;
    // Without examples we cannot tell whether the env lists actions: keep any the LLM gives.
    const listsActions = starts.some((s) => s.state.actions !== undefined);
    const { json } = await this.llm.chat({
      messages: initialMessages(task, starts, this.prompt),
      schema: listsActions ? InitialAnswerWithActions : InitialAnswer,
      schemaName: 'initial_state',
      ...this.sampling,
    });
    return toObservation(json.state, task, listsActions || json.state.actions.length > 0);
  }

  async predict(request: ExperienceRequest): Promise<ExperiencePrediction> {
    if (this.samples === 1) return this.sample(request);
    const settled = await Promise.allSettled(
      Array.from({ length: this.samples }, () => this.sample(request)),
    );
    const answers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (answers.length === 0) throw (settled[0] as PromiseRejectedResult).reason;
    // The largest group of samples alike in next state, reward and termination; among equals,
    // the one sampled first.
    const groups = new Map<string, ExperiencePrediction[]>();
    for (const a of answers) {
      const key = JSON.stringify([a.nextState.text, a.reward, a.terminated]);
      groups.set(key, [...(groups.get(key) ?? []), a]);
    }
    let majority: ExperiencePrediction[] = [];
    for (const group of groups.values()) if (group.length > majority.length) majority = group;
    return {
      ...(majority[0] as ExperiencePrediction),
      uncertainty: 1 - majority.length / this.samples,
    };
  }

  /** One sampled prediction. */
  private async sample(request: ExperienceRequest): Promise<ExperiencePrediction> {
    const listsActions = request.state.actions !== undefined;
    const messages = predictionMessages(request, this.prompt);
    const { json } = this.prompt.reasoning
      ? await this.llm.chat({
          messages,
          schema: listsActions ? PredictionAnswerWithActions : PredictionAnswer,
          schemaName: 'experience',
          ...this.sampling,
        })
      : await this.llm.chat({
          messages,
          schema: listsActions ? DirectAnswerWithActions : DirectAnswer,
          schemaName: 'experience',
          ...this.sampling,
        });
    return toPrediction(json, request.task, listsActions, this.prompt.rewardRange);
  }
}
