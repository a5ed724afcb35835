/**
 * The LLM judge of synthetic experience (the paper's Fig. 4): an LLM reads one task's group of
 * episodes, with a few real transitions of the same env family for reference, and scores each
 * criterion from 1 to 5 by its rubric, with a short reason, as schema-checked JSON.
 */
import { z } from 'zod';
import type { Trajectory } from '../../core/types.ts';
import { clip } from '../../experience/llm/prompt.ts';
import type { ChatMessage, LlmClient } from '../../llm/client.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';

/** The criteria the judge scores, in the order it is asked. */
export const CRITERIA = ['consistency', 'diversity', 'informativeness', 'hallucination'] as const;
/** One of {@link CRITERIA}. */
export type Criterion = (typeof CRITERIA)[number];

/** What 1 and 5 mean for each criterion: 5 is always the best experience for training. */
export const RUBRIC: Record<Criterion, string> = {
  consistency:
    'Does every episode agree with itself? A page or place seen again shows what it showed before unless an action changed it; a product keeps its title and price; an object stays where it was put. 5: no contradiction. 3: one minor contradiction. 1: states contradict each other often.',
  diversity:
    'Do the episodes of this task differ where the actions differ, and show varied, specific states rather than one generic page repeated? 5: different actions lead to distinct, specific states. 3: some states are generic or repeated where they should differ. 1: nearly every step shows the same or an empty state.',
  informativeness:
    'Do the states and rewards tell an agent what it needs to learn: whether it is getting closer to the goal, and rewards that separate better episodes from worse ones? 5: states show the task-relevant facts and rewards differ with outcome. 3: partly. 1: states carry no task-relevant information or every episode gets the same reward whatever it did.',
  hallucination:
    'Do the states show only things this environment could show, in its format (compare the real transitions for reference)? 5: nothing invented; everything fits the environment. 3: a few details look invented or out of place (a product or object the environment would not have, a malformed page). 1: much of the content is invented or the format is broken.',
};

const Score = z.object({
  reason: z.string().describe('one or two sentences citing what in the episodes decided the score'),
  score: z.number().int().min(1).max(5).describe('1 (worst) to 5 (best), by the rubric'),
});

/** The judge's answer: a reason and a score for every criterion. */
export const JudgeAnswer = z.object(
  Object.fromEntries(CRITERIA.map((c) => [c, Score])) as Record<Criterion, typeof Score>,
);
/** The parsed judge answer. */
export type JudgeAnswer = z.infer<typeof JudgeAnswer>;

/** How much of each episode the judge is shown. */
export interface JudgeLimits {
  /** Steps shown per episode: its first ones and its last, with a count of those left out. Default 12. */
  steps: number;
  /** Characters per observation. Default 500. */
  observation: number;
}

const DEFAULT_LIMITS: JudgeLimits = { steps: 12, observation: 500 };

/** The judge's messages for one task's group of episodes, with real transitions for reference. */
export function judgeMessages(
  group: readonly Trajectory[],
  references: readonly RetrievedTransition[],
  limits: Partial<JudgeLimits> = {},
): ChatMessage[] {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const task = group[0]?.task;
  const rubric = CRITERIA.map((c) => `- ${c}: ${RUBRIC[c]}`).join('\n');
  const system = `You judge the quality of experience that an environment produced for training an agent with reinforcement learning. You are shown several episodes of one task in the "${task?.env ?? 'unknown'}" environment (the environment may be a simulation of the real one) and, for reference, real transitions of the real environment. Score each criterion from 1 to 5 by its rubric, and give the reason first.

Rubric:
${rubric}

Answer with one JSON object and nothing else: {"consistency": {"reason": "…", "score": 1-5}, "diversity": {…}, "informativeness": {…}, "hallucination": {…}}`;
  const refs =
    references.length === 0
      ? '(none available)'
      : references
          .map(
            (r, i) =>
              `### Real transition ${i + 1}\nState:\n${clip(r.state.text, l.observation)}\nAction: ${r.action}\nNext state:\n${clip(r.nextState.text, l.observation)}\nReward: ${r.reward} · terminated: ${r.terminated}`,
          )
          .join('\n\n');
  const episodes = group.map((t, i) => `### Episode ${i + 1}\n${episodeText(t, l)}`).join('\n\n');
  const user = `## Task\n${task?.instruction ?? ''}\n\n## Real transitions of this environment, for reference\n${refs}\n\n## Episodes to judge\n${episodes}\n\nScore consistency, diversity, informativeness and hallucination of these episodes.`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

function episodeText(t: Trajectory, l: JudgeLimits): string {
  const head = Math.ceil(l.steps / 2);
  const shown =
    t.steps.length <= l.steps
      ? t.steps.map((s, i) => [i, s] as const)
      : [
          ...t.steps.slice(0, head).map((s, i) => [i, s] as const),
          ...t.steps
            .slice(-(l.steps - head))
            .map((s, i) => [t.steps.length - (l.steps - head) + i, s] as const),
        ];
  const lines = [`Initial observation:\n${clip(t.initial.text, l.observation)}`];
  let last = -1;
  for (const [i, s] of shown) {
    if (i > last + 1) lines.push(`(… ${i - last - 1} steps not shown …)`);
    lines.push(
      `Step ${i + 1}: action ${s.action}\n${s.info?.invalidAction ? '(refused: not admissible; nothing changed)' : clip(s.observation.text, l.observation)}\nreward ${s.reward}${s.terminated ? ' · episode ended' : ''}${s.truncated ? ' · cut off' : ''}`,
    );
    last = i;
  }
  return lines.join('\n');
}

/** Scores one task's group of episodes with `llm`; an unusable answer throws the LLM layer's error. */
export async function judgeGroup(
  llm: LlmClient,
  group: readonly Trajectory[],
  references: readonly RetrievedTransition[],
  limits: Partial<JudgeLimits> = {},
): Promise<JudgeAnswer> {
  const { json } = await llm.chat({
    messages: judgeMessages(group, references, limits),
    schema: JudgeAnswer,
    schemaName: 'experience_quality',
    temperature: 0,
    maxTokens: 1024,
  });
  return json;
}
