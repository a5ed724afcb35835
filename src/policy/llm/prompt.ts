/**
 * The LLM policy's prompt, ReAct-style: a system message with the env family's action syntax and
 * the answer format, and one user message holding the instruction, the last few steps, the
 * current observation and the admissible actions. Each step's prompt stands alone (nothing is
 * remembered between calls), so the policy is stateless and any step can be re-prompted exactly.
 * `dreamgym export-rl` builds its conversations with these same functions, so a model trained on
 * the export sees the prompts it will be run with.
 */
import type { Observation, Step, Task } from '../../core/types.ts';
import type { ChatMessage } from '../../llm/client.ts';

export interface PromptOptions {
  /** Replaces the built-in system message (role, action syntax and answer format). */
  systemPrompt?: string;
  /** Earlier steps shown, most recent last: each the action taken and what it led to. Default 3. */
  historyWindow?: number;
  /**
   * Answer as a JSON object `{"thought", "action"}`, constrained by a schema where the backend
   * can, instead of plain `Thought: … Action: …` text. Default false: plain text works with any
   * model; JSON suits backends with constrained decoding.
   */
  structured?: boolean;
  /** Characters of the current observation shown; longer ones are cut. Default 6,000. */
  observationChars?: number;
  /** Characters of each earlier observation shown. Default 1,000: history is context, not the page acted on. */
  historyChars?: number;
}

export type ResolvedPromptOptions = Required<Omit<PromptOptions, 'systemPrompt'>> &
  Pick<PromptOptions, 'systemPrompt'>;

export function resolvePromptOptions(options: PromptOptions = {}): ResolvedPromptOptions {
  const resolved = {
    systemPrompt: options.systemPrompt,
    historyWindow: options.historyWindow ?? 3,
    structured: options.structured ?? false,
    observationChars: options.observationChars ?? 6_000,
    historyChars: options.historyChars ?? 1_000,
  };
  for (const key of ['historyWindow', 'observationChars', 'historyChars'] as const) {
    if (!(Number.isInteger(resolved[key]) && resolved[key] >= 0))
      throw new RangeError(`${key} must be an integer ≥ 0, got ${resolved[key]}.`);
  }
  return resolved;
}

const WEBSHOP_SYNTAX = `The environment is a web shop. Actions: search[<query>] on a page with a search bar, with your own query in place of <query> (e.g. search[red ceramic mug]); click[<label>] for a button, product ID or option the page shows (e.g. click[Buy Now]). Buying ends the episode.`;

const HOUSEHOLD_SYNTAX = `The environment is a household. Actions are commands such as "go to cabinet 1", "open fridge 1", "take apple 2 from countertop 1", "move apple 2 to diningtable 1", "heat apple 2 with microwave 1", "use desklamp 1". You carry at most one object.`;

const GENERIC_RULE = `Choose one of the admissible actions and write it exactly as listed. Where one is a template such as search[<query>], replace the <placeholder> with your own text.`;

/** The built-in action syntax by env family (`agentgym:…` names included); none for others. */
const SYNTAX: ReadonlyArray<[RegExp, string]> = [
  [/webshop/i, WEBSHOP_SYNTAX],
  [/household|alfworld/i, HOUSEHOLD_SYNTAX],
];

const TEXT_FORMAT = `Answer in exactly this format, with nothing after the action:
Thought: <brief reasoning about what to do next>
Action: <one action>`;

const JSON_FORMAT = `Answer with one JSON object and nothing else:
{"thought": "<brief reasoning about what to do next>", "action": "<one action>"}`;

/** The system message for an env family: the agent's role, the action syntax, the answer format. */
export function systemMessage(env: string, options: ResolvedPromptOptions): string {
  if (options.systemPrompt !== undefined) return options.systemPrompt;
  const syntax = SYNTAX.find(([family]) => family.test(env))?.[1];
  return [
    'You are an agent completing a task in a text environment. Each turn you see the task, your last steps, the current observation and the admissible actions, and you choose the next action.',
    ...(syntax ? [syntax] : []),
    GENERIC_RULE,
    options.structured ? JSON_FORMAT : TEXT_FORMAT,
  ].join('\n\n');
}

/** The user message for one decision: task, recent history, observation, admissible actions. */
export function userMessage(
  task: Task,
  history: readonly Step[],
  observation: Observation,
  options: ResolvedPromptOptions,
): string {
  return [
    `Task: ${task.instruction}`,
    historySection(history, options),
    `Current observation:\n${clip(observation.text, options.observationChars)}`,
    actionsSection(observation.actions),
    options.structured
      ? 'Choose the next action and answer with the JSON object.'
      : 'Choose the next action and answer with "Thought:" and "Action:".',
  ].join('\n\n');
}

/** The messages the policy sends for one decision. */
export function decisionMessages(
  task: Task,
  history: readonly Step[],
  observation: Observation,
  options: ResolvedPromptOptions,
): ChatMessage[] {
  return [
    { role: 'system', content: systemMessage(task.env, options) },
    { role: 'user', content: userMessage(task, history, observation, options) },
  ];
}

/** A decision written in the answer format: what a model that took it would have answered. */
export function assistantMessage(
  decision: { action: string; reasoning?: string | undefined },
  options: ResolvedPromptOptions,
): string {
  if (options.structured)
    return JSON.stringify({ thought: decision.reasoning ?? '', action: decision.action });
  const thought = decision.reasoning === undefined ? '' : `Thought: ${decision.reasoning}\n`;
  return `${thought}Action: ${decision.action}`;
}

/** The follow-up after an unusable answer: what was wrong and the format again. */
export function retryMessage(problem: string, options: ResolvedPromptOptions): string {
  return `Your answer could not be used: ${problem}.\n\n${options.structured ? JSON_FORMAT : TEXT_FORMAT}`;
}

function historySection(history: readonly Step[], options: ResolvedPromptOptions): string {
  if (history.length === 0) return 'Your steps so far: none, this is the first step.';
  const shown = options.historyWindow === 0 ? [] : history.slice(-options.historyWindow);
  const first = history.length - shown.length;
  if (shown.length === 0) return `Your steps so far: ${history.length} (not shown).`;
  const heading =
    first === 0
      ? 'Your steps so far, oldest first:'
      : `Your last ${shown.length} steps, oldest first (${first} earlier not shown):`;
  const steps = shown.map((step, i) => {
    // The last step led to the current observation, which is written out in full below.
    const outcome = step.info?.invalidAction
      ? ` (nothing changed: ${step.info.invalidAction})`
      : i === shown.length - 1
        ? ' (the current observation, below)'
        : `\n${clip(step.observation.text, options.historyChars)}`;
    return `Step ${first + i + 1}\nAction: ${step.action}\nObservation:${outcome}`;
  });
  return [heading, ...steps].join('\n');
}

function actionsSection(actions: readonly string[] | undefined): string {
  if (!actions || actions.length === 0)
    return 'Admissible actions: not listed by this environment; write one action in its syntax.';
  return `Admissible actions:\n${actions.map((a) => `- ${a}`).join('\n')}`;
}

/** `text` cut to `max` characters with a marker saying how much was left out. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]`;
}
