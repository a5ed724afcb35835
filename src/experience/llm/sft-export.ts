/**
 * SFT data for experience models, the paper's second half of experience-model training: each
 * real transition becomes a chat example whose prompt is exactly what `LlmExperienceModel` sends
 * for that step (the same functions build it, with demonstrations retrieved as `SyntheticEnv`
 * retrieves them, minus the transition's own episode, which a model never sees at run time) and
 * whose answer is the teacher's reasoning plus the real outcome in the model's answer format.
 *
 * One JSON object a line, `{"messages": [system, user, assistant]}`: TRL's conversational
 * format, which axolotl (`type: chat_template`) and LLaMA-Factory (`formatting: sharegpt` with
 * role/content tags) read as well.
 */
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ChatMessage } from '../../llm/client.ts';
import { teacherReasoning } from '../../replay/annotations.ts';
import type { ReplayBuffer } from '../../replay/replay-buffer.ts';
import { toAnswer } from './answer.ts';
import {
  type PromptOptions,
  predictionMessages,
  type ResolvedPromptOptions,
  resolvePromptOptions,
} from './prompt.ts';
import { REAL, type RealStep, realStepCount, realSteps } from './real-steps.ts';

/** The assistant's reasoning for transitions no teacher explained (`allowUnannotated`). */
export const UNANNOTATED_REASONING = 'No reasoning was recorded for this step.';

export interface SftExportOptions extends PromptOptions {
  buffer: ReplayBuffer;
  /** The JSONL file to write (replaced when the export is complete). */
  out: string;
  /** Only transitions of this env family. Default: all. */
  env?: string;
  /** Demonstrations per example: use the `k` the synthetic env will run with. Default 4. */
  k?: number;
  /**
   * Also export transitions without teacher reasoning, with {@link UNANNOTATED_REASONING} in its
   * place. Default false: they are skipped (and counted), since the reasoning is what teaches.
   */
  allowUnannotated?: boolean;
  /** Called every 100 transitions looked at, and after the last. */
  onProgress?: (progress: SftExportResult & { visited: number; total: number }) => void;
}

export interface SftExportResult {
  /** Examples written. */
  written: number;
  /** Of those, examples with the placeholder reasoning. */
  unannotatedWritten: number;
  /** Transitions left out because they have no reasoning. */
  unannotatedSkipped: number;
}

export interface SftExample {
  messages: ChatMessage[];
}

/** Writes one SFT example per real transition of the buffer to `out`. */
export async function exportSft(options: SftExportOptions): Promise<SftExportResult> {
  const { buffer, env, onProgress } = options;
  const prompt = resolvePromptOptions(options);
  const k = options.k ?? 4;
  const total = await realStepCount(buffer, env);
  const result: SftExportResult = { written: 0, unannotatedWritten: 0, unannotatedSkipped: 0 };
  await mkdir(dirname(options.out), { recursive: true });
  const partial = `${options.out}.partial`;
  const file = await open(partial, 'w');
  let visited = 0;
  try {
    for await (const step of realSteps(buffer, env)) {
      if (++visited % 100 === 0) onProgress?.({ ...result, visited, total });
      const recorded = teacherReasoning(step.transition);
      const reasoning = recorded ?? (options.allowUnannotated ? UNANNOTATED_REASONING : undefined);
      if (reasoning === undefined) {
        result.unannotatedSkipped++;
        continue;
      }
      if (recorded === undefined) result.unannotatedWritten++;
      const example = await sftExample(buffer, step, reasoning, k, prompt);
      await file.write(`${JSON.stringify(example)}\n`);
      result.written++;
    }
  } finally {
    await file.close();
  }
  await rename(partial, options.out);
  onProgress?.({ ...result, visited, total });
  return result;
}

/**
 * One real step as an SFT example: the model's prompt for it, with demonstrations retrieved as
 * `SyntheticEnv` retrieves them but never from the step's own episode, and the answer to learn.
 */
export async function sftExample(
  buffer: ReplayBuffer,
  { transition, history }: RealStep,
  reasoning: string,
  k: number,
  prompt: ResolvedPromptOptions,
): Promise<SftExample> {
  const { task, state, action, nextState, reward, terminated, trajectoryId } = transition;
  const demonstrations = await buffer.retrieve({ state, action, task }, k, {
    env: task.env,
    provenance: REAL,
    excludeTrajectory: trajectoryId,
  });
  const answer = toAnswer(reasoning, nextState, reward, terminated);
  return {
    messages: [
      ...predictionMessages({ task, history, state, action, demonstrations }, prompt),
      { role: 'assistant', content: JSON.stringify(answer) },
    ],
  };
}
