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
   */
  temperature?: number;
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
 * de-duplicated after parsing.
 */
export class LlmExperienceModel implements ExperienceModel {
  readonly id: string;
  private readonly llm: LlmClient;
  private readonly prompt: ResolvedPromptOptions;
  private readonly sampling: { temperature: number; maxTokens: number };
  private readonly templates = new StartTemplates();

  constructor(options: LlmExperienceModelOptions) {
    this.llm = options.llm;
    this.prompt = resolvePromptOptions(options);
    this.id = `llm/${options.llm.id}${this.prompt.reasoning ? '' : '/no-reasoning'}`;
    this.sampling = { temperature: options.temperature ?? 0, maxTokens: options.maxTokens ?? 2048 };
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
