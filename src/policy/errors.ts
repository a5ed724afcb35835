import { DreamGymError } from '../core/errors.ts';

/**
 * A policy could not produce a usable action for this state (an LLM's answer named no admissible
 * action, even after a retry). Not a crash: `runEpisode` ends the episode as truncated with
 * `info.truncatedBy: 'policy-error'`, so one bad answer costs one episode, not a whole run.
 * Failures to reach a model (timeouts, refused connections) are not this error: they propagate,
 * since every later episode would fail the same way.
 */
export class PolicyOutputError extends DreamGymError {
  override name = 'PolicyOutputError';
  constructor(
    readonly policyId: string,
    /** What was wrong with the last answer, as shown to the model. */
    readonly problem: string,
    /** The action the answer named, if it named one; recorded as the episode's last action. */
    readonly attemptedAction: string,
    /** The answer's reasoning, if it had any. */
    readonly reasoning: string | undefined,
  ) {
    super(
      `${policyId}: no usable action after a retry (${problem}). Use a stronger or instruction-tuned model, a lower temperature, or structured output (structured: true / --llm-structured).`,
    );
  }
}
