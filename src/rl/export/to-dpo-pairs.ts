/**
 * Trajectories → preference pairs for an LLM policy in TRL's conversational preference format
 * (`DPOTrainer`'s dataset): `{prompt, chosen, rejected}`, the prompt being the messages the LLM
 * policy is sent at the decision (`decisionMessages`), chosen and rejected one assistant turn
 * each.
 */
import type { Step, Trajectory } from '../../core/types.ts';
import type { ChatMessage } from '../../llm/client.ts';
import {
  assistantMessage,
  decisionMessages,
  type PromptOptions,
  resolvePromptOptions,
} from '../../policy/llm/prompt.ts';
import { offlinePreferencePairs, type PreferencePair } from '../preference-pairs.ts';

/** One line of TRL's conversational preference dataset. */
export interface DpoLine {
  prompt: ChatMessage[];
  chosen: ChatMessage[];
  rejected: ChatMessage[];
}

/**
 * The pairs `offlinePreferencePairs` finds in the trajectories (a success and a failure of the
 * same task in the same state: rollouts in groups have them), as TRL lines. The assistant turns
 * hold the action alone, in the policy's answer format: a thought would be the chosen episode's
 * only, and the two answers should differ in what they do. Pure: the same input, the same lines.
 */
export function toDpoLines(
  trajectories: readonly Trajectory[],
  options: PromptOptions & { seed?: number } = {},
): DpoLine[] {
  const prompt = resolvePromptOptions(options);
  const byId = new Map(trajectories.map((t) => [t.id, t]));
  const pairs = offlinePreferencePairs(trajectories, { seed: options.seed ?? 0 });
  return pairs.map((pair: PreferencePair) => {
    const episode = byId.get(pair.episodeId) as Trajectory;
    const history: Step[] = episode.steps.slice(0, pair.step);
    const answer = (action: string): ChatMessage[] => [
      { role: 'assistant', content: assistantMessage({ action }, prompt) },
    ];
    return {
      prompt: decisionMessages(episode.task, history, pair.decision.observation, prompt),
      chosen: answer(pair.chosen),
      rejected: answer(pair.rejected),
    };
  });
}
