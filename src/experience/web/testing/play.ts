import type { Observation, Step, Task } from '../../../core/types.ts';
import type { ExperienceModel } from '../../experience-model.ts';

/**
 * Plays `actions` in `model` from `start` as SyntheticEnv would (no demonstrations): every step,
 * with the model's uncertainty as `info.uncertainty`.
 */
export async function playModel(
  model: ExperienceModel,
  task: Task,
  start: Observation,
  actions: readonly string[],
): Promise<Step[]> {
  const steps: Step[] = [];
  let state = start;
  for (const action of actions) {
    const p = await model.predict({ task, history: steps, state, action, demonstrations: [] });
    steps.push({
      action,
      observation: p.nextState,
      reward: p.reward,
      terminated: p.terminated,
      truncated: false,
      reasoning: p.reasoning,
      ...(p.uncertainty !== undefined && { info: { uncertainty: p.uncertainty } }),
    });
    state = p.nextState;
  }
  return steps;
}
