/**
 * The experience model's answer: the JSON the LLM must write (checked by a zod schema, so an
 * invalid answer gets the LLM layer's repair round), its conversion into an
 * {@link ExperiencePrediction}, and the reverse for SFT targets.
 */
import { z } from 'zod';
import type { Observation, Task } from '../../core/types.ts';
import type { ExperiencePrediction } from '../experience-model.ts';

const stateText = z
  .string()
  .describe('the complete text the environment shows')
  .refine((text) => text.trim().length > 0, {
    message: 'the state text is empty; write the full text the environment shows',
  });

const StateAnswer = z.object({
  text: stateText,
  actions: z.array(z.string()).describe('the actions admissible in this state'),
});

const OutcomeFields = {
  next_state: StateAnswer,
  reward: z.number().describe("this step's reward"),
  terminated: z.boolean().describe('whether the episode ended by the environment’s own rules'),
};

const PredictionFields = {
  reasoning: z.string().describe('step-by-step reasoning, written before the prediction'),
  ...OutcomeFields,
};

/** The answer to a prediction, for envs that do not list admissible actions. */
export const PredictionAnswer = z.object(PredictionFields);
export type PredictionAnswer = z.infer<typeof PredictionAnswer>;

/**
 * The answer for envs that list admissible actions: a state the episode goes on from must list
 * some, or every later action would be refused as inadmissible.
 */
export const PredictionAnswerWithActions = PredictionAnswer.refine(
  (a) => a.terminated || someAction(a.next_state.actions),
  {
    message: 'the episode goes on (terminated is false), so next_state.actions must not be empty',
    path: ['next_state', 'actions'],
  },
);

/** The − reasoning ablation's answer: the prediction alone, no reasoning field. */
export const DirectAnswer = z.object(OutcomeFields);
export type DirectAnswer = z.infer<typeof DirectAnswer>;

/** {@link DirectAnswer} for envs that list admissible actions (see {@link PredictionAnswerWithActions}). */
export const DirectAnswerWithActions = DirectAnswer.refine(
  (a) => a.terminated || someAction(a.next_state.actions),
  {
    message: 'the episode goes on (terminated is false), so next_state.actions must not be empty',
    path: ['next_state', 'actions'],
  },
);

/** The answer giving an episode's first observation, for envs that do not list actions. */
export const InitialAnswer = z.object({
  reasoning: z.string().describe('step-by-step reasoning, written before the observation'),
  state: StateAnswer,
});

/** The first observation of an env that lists admissible actions: some must be admissible. */
export const InitialAnswerWithActions = InitialAnswer.refine((a) => someAction(a.state.actions), {
  message: 'state.actions is empty; list the actions admissible when the episode starts',
  path: ['state', 'actions'],
});

function someAction(actions: readonly string[]): boolean {
  return actions.some((action) => action.trim().length > 0);
}

/**
 * The prediction an answer stands for. The LLM's numbers are not trusted blindly: the reward is
 * clamped to the env's range, actions are trimmed and de-duplicated, and they are kept only where
 * the env lists actions (`listsActions`), so the next state has the same shape as the current one.
 */
export function toPrediction(
  answer: DirectAnswer & { reasoning?: string },
  task: Task,
  listsActions: boolean,
  [min, max]: readonly [number, number],
): ExperiencePrediction {
  return {
    reasoning: answer.reasoning ?? '',
    nextState: toObservation(answer.next_state, task, listsActions),
    reward: Math.min(max, Math.max(min, answer.reward)),
    terminated: answer.terminated,
  };
}

export function toObservation(
  state: { text: string; actions: readonly string[] },
  task: Task,
  listsActions: boolean,
): Observation {
  const observation: Observation = { text: state.text, instruction: task.instruction };
  if (listsActions) observation.actions = distinctActions(state.actions);
  return observation;
}

/** The answer a perfect model gives for a real transition: an SFT target. */
export function toAnswer(
  reasoning: string,
  nextState: Observation,
  reward: number,
  terminated: boolean,
): PredictionAnswer {
  return {
    reasoning,
    next_state: { text: nextState.text, actions: nextState.actions ?? [] },
    reward,
    terminated,
  };
}

function distinctActions(actions: readonly string[]): string[] {
  return [...new Set(actions.map((a) => a.trim()).filter((a) => a.length > 0))];
}
