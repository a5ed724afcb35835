import type { Observation, Task } from '../core/types.ts';
import type { RetrievedTransition } from '../replay/stored-transition.ts';
import type {
  ExperienceModel,
  ExperiencePrediction,
  ExperienceRequest,
} from './experience-model.ts';

/**
 * The env-agnostic LLM-free experience model: it answers with the next state, reward and
 * termination of the most similar real transition (the top demonstration), with the
 * demonstration's instruction replaced by this task's wherever the page quotes it, and keeps an
 * episode consistent by replaying what it already showed for the same (state, action). A baseline
 * and the fallback for env families without a grammar-aware model. Its uncertainty is the angle
 * between the request's key and the copied transition's, a right angle being 1 (0 for the same
 * state and action: a real transition replayed; cosine similarities crowd near 1, angles spread),
 * 0 for a step this episode already took, and 1 with nothing retrieved.
 */
export class NearestNeighborModel implements ExperienceModel {
  readonly id = 'llm-free/nearest-neighbor';

  async initial(task: Task, demonstrations: readonly RetrievedTransition[]): Promise<Observation> {
    const start = demonstrations.find((d) => d.t === 0) ?? demonstrations[0];
    if (!start) return { text: task.instruction, instruction: task.instruction };
    return adapt(start.state, start.task.instruction, task.instruction);
  }

  async predict({
    task,
    history,
    state,
    action,
    demonstrations,
  }: ExperienceRequest): Promise<ExperiencePrediction> {
    const before = history.findIndex(
      (s, i) =>
        s.action === action &&
        (i === 0 ? undefined : history[i - 1]?.observation.text) === state.text,
    );
    const seen = before >= 0 ? history[before] : undefined;
    if (seen) {
      return {
        reasoning: `the same action was taken from the same state earlier in this episode (step ${before + 1}); showing the same result.`,
        nextState: seen.observation,
        reward: seen.reward,
        terminated: seen.terminated,
        uncertainty: 0,
      };
    }
    const best = demonstrations[0];
    if (!best) {
      return {
        reasoning: 'no demonstration was retrieved; the state stays as it is.',
        nextState: state,
        reward: 0,
        terminated: false,
        uncertainty: 1,
      };
    }
    return {
      reasoning: `copied from the most similar real transition (${best.trajectoryId} step ${best.t}, similarity ${best.similarity.toFixed(3)}): "${best.action}" led to its next state with reward ${best.reward}.`,
      nextState: adapt(best.nextState, best.task.instruction, task.instruction),
      reward: best.reward,
      terminated: best.terminated,
      uncertainty: Math.min(
        1,
        Math.acos(Math.min(1, Math.max(-1, best.similarity))) / (Math.PI / 2),
      ),
    };
  }
}

function adapt(observation: Observation, from: string, to: string): Observation {
  const text = from && from !== to ? observation.text.split(from).join(to) : observation.text;
  return {
    text,
    instruction: to,
    ...(observation.actions && { actions: [...observation.actions] }),
  };
}
