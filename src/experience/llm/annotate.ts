/**
 * Teacher reasoning for real transitions, the first half of the paper's experience-model
 * training data: a strong LLM is shown a real step *with its real outcome* and asked for the
 * reasoning that leads there. `exportSft` then pairs each step's prediction prompt with that
 * reasoning and the real outcome as the answer to learn.
 */
import { z } from 'zod';
import type { ChatMessage, LlmClient } from '../../llm/client.ts';
import { LlmError } from '../../llm/errors.ts';
import { teacherReasoning } from '../../replay/annotations.ts';
import type { ReplayBuffer } from '../../replay/replay-buffer.ts';
import { envDescriptionFor } from './env-descriptions.ts';
import {
  actionList,
  clip,
  historySection,
  type PromptOptions,
  type ResolvedPromptOptions,
  resolvePromptOptions,
  stateSection,
  taskSection,
} from './prompt.ts';
import { type RealStep, realStepCount, realSteps } from './real-steps.ts';

export interface AnnotateOptions
  extends Pick<PromptOptions, 'historyWindow' | 'envDescription' | 'limits'> {
  buffer: ReplayBuffer;
  /** The teacher. */
  llm: LlmClient;
  /** Only transitions of this env family. Default: all. */
  env?: string;
  /** Transitions sent to the teacher in this run at most (annotated or failed). Default: all. */
  limit?: number;
  /** Teacher requests in flight at once. Default 4. */
  concurrency?: number;
  /** Give up after this many failures in a row: the server is down or the model unusable. Default 20. */
  maxConsecutiveFailures?: number;
  /** Teacher sampling temperature. Default 0. */
  temperature?: number;
  /** Reasoning length limit in tokens. Default 1,024. */
  maxTokens?: number;
  /** Called after each transition the teacher answered or failed on. */
  onProgress?: (progress: AnnotateProgress) => void;
}

export interface AnnotateProgress {
  /** Real transitions to look at in this buffer (and env). */
  total: number;
  /** Looked at so far, skipped ones included. */
  visited: number;
  /** Reasoning stored in this run. */
  annotated: number;
  /** Skipped: they had teacher reasoning already (an earlier run's). */
  alreadyAnnotated: number;
  /** The teacher failed on them; left without reasoning for a later run. */
  failed: number;
}

export interface AnnotateResult extends AnnotateProgress {
  /** Why the run stopped before the end (too many failures in a row), if it did. */
  stoppedEarly?: string;
  /** The last teacher failure's message. */
  lastError?: string;
}

const TeacherAnswer = z.object({
  reasoning: z
    .string()
    .describe('the step-by-step reasoning that leads to the real outcome')
    .refine((r) => r.trim().length > 0, { message: 'the reasoning is empty; write it' }),
});

const TEACHER_SYSTEM_PROMPT = `You explain the steps of a text environment. You are shown one real step of a recorded episode: the task, the recent history, the state, the agent's action, and what the environment really showed next, with the reward and whether the episode ended.
Write the reasoning that leads from the state and the action to exactly that outcome, step by step, as a careful simulator of this environment would think before predicting it: what the action does here, which rules of the environment apply, why the next state looks as it does, why the reward and the termination are what they are. Write it as a prediction made before seeing the outcome: never mention that the outcome was shown to you. At most 150 words.

Answer with one JSON object and nothing else:
{"reasoning": "<your step-by-step reasoning>"}`;

/** The teacher's messages for one real step: a different prompt from prediction's, answer shown. */
export function annotationMessages(
  { transition, history }: RealStep,
  options: ResolvedPromptOptions,
): ChatMessage[] {
  const { task, state, action, nextState, reward, terminated } = transition;
  const description = options.envDescription ?? envDescriptionFor(task.env);
  const outcome = [
    '## What the environment really showed next',
    clip(nextState.text, options.limits.state),
    ...(nextState.actions ? [`Admissible actions: ${actionList(nextState.actions)}`] : []),
    `Reward: ${reward} · terminated: ${terminated}`,
  ].join('\n');
  const user = [
    taskSection(task),
    historySection(history, options),
    stateSection(state, options.limits.state),
    `## Action\n${action}`,
    outcome,
    'Write the reasoning that leads from this state and action to this outcome, then answer with the JSON object.',
  ].join('\n\n');
  return [
    { role: 'system', content: `${TEACHER_SYSTEM_PROMPT}\n\n## The environment\n${description}` },
    { role: 'user', content: user },
  ];
}

/**
 * Asks the teacher why each real transition without teacher reasoning happened and stores the
 * answer on the transition (`ReplayBuffer.setTeacherReasoning`). Resumable: transitions that have
 * it are skipped, and each answer is stored as it comes. Teacher failures are counted and skipped
 * (a later run retries them); only too many in a row stop the run, since then the server, not
 * the transition, is at fault.
 */
export async function annotateBuffer(options: AnnotateOptions): Promise<AnnotateResult> {
  const { buffer, llm, env, onProgress } = options;
  const prompt = resolvePromptOptions(options);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const maxConsecutiveFailures = options.maxConsecutiveFailures ?? 20;
  const sampling = { temperature: options.temperature ?? 0, maxTokens: options.maxTokens ?? 1024 };
  const result: AnnotateResult = {
    total: await realStepCount(buffer, env),
    visited: 0,
    annotated: 0,
    alreadyAnnotated: 0,
    failed: 0,
  };
  let sent = 0;
  let failuresInARow = 0;
  let crashed = false;

  async function* unannotated(): AsyncGenerator<RealStep> {
    for await (const step of realSteps(buffer, env)) {
      result.visited++;
      if (teacherReasoning(step.transition) === undefined) yield step;
      else result.alreadyAnnotated++;
    }
  }
  const jobs = unannotated();

  const worker = async () => {
    while (!crashed && result.stoppedEarly === undefined && sent < limit) {
      // Counted before the wait, so that workers waiting together never pass the limit.
      sent++;
      const job = await jobs.next();
      if (job.done) return;
      try {
        const { json } = await llm.chat({
          messages: annotationMessages(job.value, prompt),
          schema: TeacherAnswer,
          schemaName: 'reasoning',
          ...sampling,
        });
        await buffer.setTeacherReasoning(job.value.transition.id, json.reasoning.trim());
        result.annotated++;
        failuresInARow = 0;
      } catch (error) {
        // Anything but an LLM failure is a bug or a broken buffer: stop every worker.
        if (!(error instanceof LlmError)) {
          crashed = true;
          throw error;
        }
        result.failed++;
        result.lastError = error.message;
        if (++failuresInARow >= maxConsecutiveFailures)
          result.stoppedEarly = `${failuresInARow} teacher failures in a row`;
      }
      onProgress?.({ ...result });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return result;
}
