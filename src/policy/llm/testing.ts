/**
 * Helpers for scripting a fake model that plays through the LLM policy's prompts (with `MockLlm`
 * or a fake server): they read back what the prompt showed, as a model would.
 */

/** A chat message as `LlmClient` requests and OpenAI-compatible servers carry it. */
type Message = { role: string; content: string };

/** The admissible actions a policy prompt lists (a retry's request included). */
export function promptedActions(messages: readonly Message[]): string[] {
  const prompt = decisionPrompt(messages);
  const list = /\nAdmissible actions:\n((?:- .*(?:\n|$))+)/.exec(prompt)?.[1] ?? '';
  return list
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2));
}

/** The task instruction of a policy prompt. */
export function promptedTask(messages: readonly Message[]): string {
  return /^Task: (.*)$/m.exec(decisionPrompt(messages))?.[1] ?? '';
}

/** The user message with the decision; a retry's follow-up comes after it. */
function decisionPrompt(messages: readonly Message[]): string {
  return messages.find((m) => m.role === 'user')?.content ?? '';
}
