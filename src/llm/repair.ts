import type { ChatMessage } from './client.ts';
import type { OutputProblem } from './errors.ts';

/**
 * The repair round's conversation: the original one, the model's unusable answer, and what was
 * wrong with it. Showing the model its own answer and the exact validation error fixes most
 * near-misses (a missing field, a wrong enum value, a trailing comma) in one more call.
 */
export function repairConversation(
  messages: readonly ChatMessage[],
  previousAnswer: string,
  problem: OutputProblem,
  detail: string,
): ChatMessage[] {
  const ask =
    problem === 'truncated'
      ? 'Your answer above was cut off at the token limit. Reply again with a complete, shorter JSON value.'
      : `Your answer above is not valid for the required JSON schema:\n${detail}\nReply again with only the corrected JSON value.`;
  return [
    ...messages,
    { role: 'assistant', content: previousAnswer },
    { role: 'user', content: ask },
  ];
}
