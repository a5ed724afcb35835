import { createHash } from 'node:crypto';
import type { Step, Trajectory } from '../../core/types.ts';
import { validateTrajectory } from '../trajectory-format.ts';

/** One action read from a transcript and the text that answered it. */
export interface EpisodeStep {
  action: string;
  /** What came back: a tool's result, the user's next message, or '' after the final answer. */
  observation: string;
  /** Text the agent wrote alongside the action, where it did. */
  reasoning?: string;
  /** The id the transcript gave the tool call, kept in `info.toolCallId` to trace it back. */
  toolCallId?: string;
}

/** Everything a transcript reader gathered about one episode. */
export interface EpisodeDraft {
  id: string;
  env: string;
  taskId: string;
  instruction: string;
  steps: EpisodeStep[];
  /** The episode's outcome, given to its last step; earlier steps get 0. */
  reward: number;
  policyId: string;
  startedAt: string;
  endedAt: string;
}

/**
 * The trajectory of a transcript's episode: provenance `real-offline`, the initial observation is
 * the user's request, and the last step is `terminated` with the outcome as its reward (a
 * transcript ends when the conversation did, not by a step limit). Validated.
 */
export function draftToTrajectory(draft: EpisodeDraft): Trajectory {
  const { instruction } = draft;
  const last = draft.steps.length - 1;
  const steps = draft.steps.map((s, i): Step => {
    const step: Step = {
      action: s.action,
      observation: { text: s.observation, instruction },
      reward: i === last ? draft.reward : 0,
      terminated: i === last,
      truncated: false,
    };
    if (s.reasoning !== undefined) step.reasoning = s.reasoning;
    if (s.toolCallId !== undefined) step.info = { toolCallId: s.toolCallId };
    return step;
  });
  return validateTrajectory({
    id: draft.id,
    env: draft.env,
    task: { id: draft.taskId, env: draft.env, instruction, origin: 'seed' },
    initial: { text: instruction, instruction },
    steps,
    provenance: 'real-offline',
    policyId: draft.policyId,
    startedAt: draft.startedAt,
    endedAt: draft.endedAt,
  });
}

/** A short, stable hex digest of `text` (the first 16 hex digits of its SHA-256). */
export function stableHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The task id of an episode with no explicit one: the same request gives the same task, so the
 * episodes of one request form a group (as rollouts of one task do) however they were logged.
 */
export function taskIdOf(instruction: string): string {
  return `task-${stableHash(instruction.trim())}`;
}
