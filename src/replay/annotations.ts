/**
 * Annotations on stored transitions: a teacher LLM's explanation of why a transition happened,
 * the LLM experience model's SFT target.
 */
import type { StepInfo } from '../core/types.ts';
import type { TransitionStore } from './transition-store.ts';

/**
 * Stores a teacher LLM's explanation of why a transition happened (the experience model's SFT
 * target) as `info.teacherReasoning`, replacing any earlier one. Not in `reasoning`, which holds
 * the policy's reasoning on real steps; `info` keeps it through JSONL export and import.
 */
export function setTeacherReasoning(
  store: TransitionStore,
  transitionId: number,
  reasoning: string,
): void {
  const { changes } = store.db
    .prepare(
      `UPDATE transitions SET info = json_set(coalesce(info, '{}'), '$.teacherReasoning', ?) WHERE rowid = ?`,
    )
    .run(reasoning, transitionId);
  if (changes === 0)
    throw new RangeError(
      `setTeacherReasoning: ${store.db.name} has no transition ${transitionId}; take ids from trajectoryTransitions() or retrieve().`,
    );
}

/** A transition's teacher reasoning (see `ReplayBuffer.setTeacherReasoning`), if it has one. */
export function teacherReasoning(step: { info?: StepInfo }): string | undefined {
  const reasoning = step.info?.teacherReasoning;
  return typeof reasoning === 'string' ? reasoning : undefined;
}
