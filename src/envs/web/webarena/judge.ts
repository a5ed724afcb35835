import { z } from 'zod';
import type { LlmClient } from '../../../llm/client.ts';

/**
 * The LLM judge of WebArena's fuzzy checks (`llm_fuzzy_match` and `llm_ua_match` in
 * `evaluation_harness/helper_functions.py`), asked for structured JSON instead of free text.
 * WebArena counts only a plain "correct" (resp. "same") as a pass; so do we.
 */

/** A judge's verdict; `passed` is undefined when the judge could not be asked (it failed). */
export interface JudgeVerdict {
  passed: boolean | undefined;
  detail: string;
}

const FuzzyVerdictSchema = z.object({
  reasoning: z.string(),
  verdict: z.enum(['correct', 'partially correct', 'incorrect']),
});

const UnachievableVerdictSchema = z.object({
  reasoning: z.string(),
  verdict: z.enum(['same', 'different']),
});

const SYSTEM =
  'You grade the final answers of an agent that performed tasks on web sites. Judge meaning, not ' +
  'wording. Reply with JSON only.';

/** Does `answer` say what `reference` says, as an answer to `intent`? */
export async function judgeFuzzy(
  judge: LlmClient,
  { intent, reference, answer }: { intent: string; reference: string; answer: string },
): Promise<JudgeVerdict> {
  const prompt = [
    `Task given to the agent: ${intent}`,
    `Reference answer: ${reference}`,
    `Agent's answer: ${answer}`,
    'Wherever "N/A" appears it means the task cannot be achieved.',
    "Is the agent's answer semantically equivalent to the reference answer? It may be phrased " +
      'differently. Give your reasoning, then the verdict "correct" (equivalent), "partially ' +
      'correct" (covers only part of it) or "incorrect".',
  ].join('\n');
  return ask(
    judge,
    prompt,
    FuzzyVerdictSchema,
    'correct',
    `"${answer}" vs reference "${reference}"`,
  );
}

/**
 * For a task that cannot be done: does the agent's stated reason (`answer`) agree with the
 * actual reason (`reason`, the config's `string_note`)?
 */
export async function judgeUnachievable(
  judge: LlmClient,
  { intent, reason, answer }: { intent: string; reason: string; answer: string },
): Promise<JudgeVerdict> {
  const prompt = [
    `Task given to the agent: ${intent}`,
    `Why the task cannot be done: ${reason}`,
    `Why the agent says it cannot be done: ${answer}`,
    "The task cannot be done for the first reason. Does the agent's reason agree with it, even " +
      'if only implicitly? Give your reasoning, then the verdict "same" or "different".',
  ].join('\n');
  return ask(judge, prompt, UnachievableVerdictSchema, 'same', `reason "${answer}" vs "${reason}"`);
}

async function ask<V extends string>(
  judge: LlmClient,
  prompt: string,
  schema: z.ZodType<{ reasoning: string; verdict: V }>,
  pass: V,
  compared: string,
): Promise<JudgeVerdict> {
  try {
    const { json } = await judge.chat({
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: prompt },
      ],
      schema,
      schemaName: 'verdict',
      temperature: 0,
    });
    return {
      passed: json.verdict === pass,
      detail: `judge ${judge.id}: ${json.verdict} (${compared}): ${json.reasoning}`,
    };
  } catch (error) {
    return {
      passed: undefined,
      detail: `judge ${judge.id} failed (${(error as Error).message}); ${compared} left undecided`,
    };
  }
}
