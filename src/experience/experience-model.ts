import type { Observation, Step, Task } from '../core/types.ts';
import type { RetrievedTransition } from '../replay/stored-transition.ts';

/** What an experience model is asked at each synthetic step. */
export interface ExperienceRequest {
  task: Task;
  /**
   * The episode so far, oldest first: its synthetic steps, after the recorded real steps it
   * started from when it branched from a real episode (`reset({ from })`).
   */
  history: readonly Step[];
  /**
   * The episode's first observation, as the env showed it (for a branched episode, the real
   * episode's start), so a model needs not remember it per task.
   */
  initial?: Observation;
  /** The state before the action: the initial state or the last step's observation. */
  state: Observation;
  action: string;
  /** The most similar real transitions from the replay buffer, most similar first. */
  demonstrations: readonly RetrievedTransition[];
}

/** The model's answer: its reasoning, then the predicted next state, reward and termination. */
export interface ExperiencePrediction {
  reasoning: string;
  nextState: Observation;
  reward: number;
  terminated: boolean;
  /**
   * False when the model cannot tell how this ending turned out (no evidence for its outcome):
   * the episode ends with `reward` (a failure), and the synthetic env marks the step
   * `info.unjudged`, so trainers leave it out instead of learning from a guess. Default true.
   */
  judged?: boolean;
  /**
   * How unsure the model is of this prediction, in [0, 1], from the evidence behind it: 0 for
   * the exact replay of a real transition, more the less of the prediction the buffer showed
   * (a page composed from other episodes, a reward from a fitted model: its doubt). The synthetic
   * env records it as `info.uncertainty` (1 for an unjudged ending whatever the model says).
   * Absent: the model does not say, and pessimism (`UncertaintyPenalty`, `UncertaintyHalt`)
   * passes the step as it is.
   */
  uncertainty?: number;
}

/**
 * Predicts the next state, reward and termination of a text environment from the task, the
 * history, the state, the action and retrieved real transitions (DreamGym's experience model).
 * It never sees a real env's hidden state, catalog or code: what it knows comes from the replay
 * buffer, its demonstrations and, for an LLM, general knowledge.
 */
export interface ExperienceModel {
  readonly id: string;
  /**
   * False when `predict` reads no `request.demonstrations`: a model that learnt the buffer as a
   * whole beforehand (the LLM-free ones index its real episodes themselves). The synthetic env
   * then retrieves none per step, which would cost time and tell nothing. Default true.
   */
  readonly readsDemonstrations?: boolean;
  /** The first observation of an episode of `task`; `demonstrations` are real episode starts. */
  initial(task: Task, demonstrations: readonly RetrievedTransition[]): Promise<Observation>;
  /** The next state, reward and termination after `request.action`. */
  predict(request: ExperienceRequest): Promise<ExperiencePrediction>;
  /**
   * Learns the real episodes the buffer gained since the model was made or last refreshed (from
   * a collector, a served real env, S2R); returns how many. Models learnt from the buffer
   * (the LLM-free ones) have it; the pipeline calls it between training iterations.
   */
  refresh?(): Promise<number>;
}

/** The model could not produce a usable prediction (an LLM's garbage, say): the episode is truncated. */
export class ExperienceModelError extends Error {
  override name = 'ExperienceModelError';
}
