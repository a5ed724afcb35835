/**
 * The LLM experience model's prompt, one function per part. `dreamgym export-sft` builds its
 * training prompts with these same functions, so a model fine-tuned on the export sees at run
 * time exactly the prompts it was trained on.
 */
import { DEFAULT_MAX_ACTION_CHARS } from '../../core/action-limit.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type { ChatMessage } from '../../llm/client.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import type { ExperienceRequest } from '../experience-model.ts';
import { type PruneFocus, pruneTree } from '../web/prune.ts';
import { envDescriptionFor } from './env-descriptions.ts';

/**
 * Character limits for the texts a prompt quotes (the state budget). Longer texts keep their head
 * and tail; longer accessibility-tree pages are pruned instead (`fitText`).
 */
export interface TextLimits {
  /** The current state. Default 6,000: the model must see the whole page it acts on. */
  state: number;
  /** Each observation in the history. Default 1,000. */
  history: number;
  /** Each state and next state of a demonstration. Default 1,200. */
  demonstration: number;
  /** Admissible actions listed per demonstration. Default 40. */
  demonstrationActions: number;
  /** Each action (the one to predict, and those of the history and demonstrations). Default 2,000. */
  action: number;
}

/** Default character budgets of the prompt's parts. */
export const DEFAULT_LIMITS: TextLimits = {
  state: 6_000,
  history: 1_000,
  demonstration: 1_200,
  demonstrationActions: 40,
  action: DEFAULT_MAX_ACTION_CHARS,
};

/** Writes one retrieved transition as a demonstration; `index` is 0 for the most similar. */
export type DemonstrationFormatter = (
  demonstration: RetrievedTransition,
  index: number,
  limits: TextLimits,
) => string;

export interface PromptOptions {
  /** Steps of history shown, most recent last; older ones are counted, not shown. Default 4. */
  historyWindow?: number;
  /** What the model is told about the env; default: the built-in one for the task's env family. */
  envDescription?: string;
  /** Replaces the built-in instructions (role, rules, answer format); the env description follows. */
  systemPrompt?: string;
  /** How a demonstration is written; default {@link formatDemonstration}. */
  formatDemonstration?: DemonstrationFormatter;
  /** Character limits for quoted texts; see {@link DEFAULT_LIMITS}. */
  limits?: Partial<TextLimits>;
  /** The env's reward range, told to the model (and enforced on its answers). Default [0, 1]. */
  rewardRange?: readonly [number, number];
  /**
   * Ask for step-by-step reasoning before the prediction. Default true; false is the − reasoning
   * ablation (its own instructions and an answer without the reasoning field).
   */
  reasoning?: boolean;
}

/** {@link PromptOptions} with every default filled in. */
export interface ResolvedPromptOptions {
  historyWindow: number;
  envDescription: string | undefined;
  systemPrompt: string | undefined;
  formatDemonstration: DemonstrationFormatter;
  limits: TextLimits;
  rewardRange: readonly [number, number];
  reasoning: boolean;
}

export function resolvePromptOptions(options: PromptOptions = {}): ResolvedPromptOptions {
  const historyWindow = options.historyWindow ?? 4;
  const rewardRange = options.rewardRange ?? [0, 1];
  if (!(Number.isInteger(historyWindow) && historyWindow >= 0))
    throw new RangeError(`historyWindow must be an integer ≥ 0, got ${historyWindow}.`);
  if (!(rewardRange[0] < rewardRange[1]))
    throw new RangeError(`rewardRange must be [min, max] with min < max, got [${rewardRange}].`);
  return {
    historyWindow,
    envDescription: options.envDescription,
    systemPrompt: options.systemPrompt,
    formatDemonstration: options.formatDemonstration ?? formatDemonstration,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    rewardRange,
    reasoning: options.reasoning ?? true,
  };
}

/** The answer format, shown in the system prompt; `answer.ts` holds the schema that checks it. */
const ANSWER_FORMAT =
  '{"reasoning": "<your step-by-step reasoning>", "next_state": {"text": "<the full text the environment shows>", "actions": ["<admissible action>", "…"]}, "reward": <number>, "terminated": <true or false>}';

/** The answer format of the − reasoning ablation: the prediction alone. */
const DIRECT_ANSWER_FORMAT =
  '{"next_state": {"text": "<the full text the environment shows>", "actions": ["<admissible action>", "…"]}, "reward": <number>, "terminated": <true or false>}';

/** The rules every experience model keeps, whether or not it reasons first. */
function predictionRules([min, max]: readonly [number, number]): string[] {
  return [
    'The next state is the complete text the environment shows after the action, in the same format as the states of the demonstrations. Show it; do not describe it.',
    'List the actions admissible in the next state, written exactly as the environment writes them (see the demonstrations); an empty list only when the episode has ended.',
    'Stay consistent with the history: a page or place shown before shows the same things again (the same items, prices, objects).',
    'An action that is not admissible in the current state changes nothing and earns reward 0: the next state is then the current state, unchanged. (The environment refuses such actions before asking you, so the action you are given is admissible.)',
    `The reward is a number from ${min} to ${max}, given only where the environment gives one (see its description).`,
    '"terminated" is true only when the episode ends by the environment\'s own rules, never because of a step limit.',
  ];
}

const ROLE =
  "You are the experience model of a text environment: you simulate the environment, not the agent. Given the task, the recent history, the current state and the agent's action, you predict what the environment shows next, the reward of this step and whether the episode ends. Real transitions of similar steps, retrieved from recorded episodes, are shown as demonstrations: they show the environment's real text format, how actions change states and when rewards come. Follow them wherever they apply.";

const numbered = (rules: readonly string[]) => rules.map((r, i) => `${i + 1}. ${r}`).join('\n');

/** The built-in instructions: the model's role, the rules it must keep, and the answer format. */
export function defaultSystemPrompt(range: readonly [number, number]): string {
  const rules = [
    'Reason step by step first: what the action does in the current state, which demonstrations apply and how, and what the environment therefore shows.',
    ...predictionRules(range),
  ];
  return `${ROLE}\n\nRules:\n${numbered(rules)}\n\nAnswer with one JSON object and nothing else:\n${ANSWER_FORMAT}`;
}

/**
 * The instructions of the − reasoning ablation (the paper's Table 2): the same role and rules,
 * but the model answers with the next state, reward and termination directly, no reasoning field.
 */
export function directSystemPrompt(range: readonly [number, number]): string {
  return `${ROLE}\n\nRules:\n${numbered(predictionRules(range))}\n\nAnswer at once, without any reasoning or explanation, with one JSON object and nothing else:\n${DIRECT_ANSWER_FORMAT}`;
}

/** The system message: the instructions, then the description of the task's env family. */
export function systemMessage(task: Task, options: ResolvedPromptOptions): string {
  const instructions =
    options.systemPrompt ??
    (options.reasoning ? defaultSystemPrompt : directSystemPrompt)(options.rewardRange);
  const description = options.envDescription ?? envDescriptionFor(task.env);
  return `${instructions}\n\n## The environment\n${description}`;
}

/** The messages for one prediction: the system message and the step to predict. */
export function predictionMessages(
  request: ExperienceRequest,
  options: ResolvedPromptOptions,
): ChatMessage[] {
  const { task, history, state, action, demonstrations } = request;
  const user = [
    taskSection(task),
    demonstrationsSection(demonstrations, options),
    historySection(history, options),
    stateSection(state, options.limits.state, action),
    `## Action\n${quoteAction(action, options.limits)}`,
    options.reasoning
      ? 'Predict what the environment shows after this action, the reward and whether the episode ends. Reason step by step first, then answer with the JSON object.'
      : 'Predict what the environment shows after this action, the reward and whether the episode ends. Answer with the JSON object only.',
  ].join('\n\n');
  return [
    { role: 'system', content: systemMessage(task, options) },
    { role: 'user', content: user },
  ];
}

export function taskSection(task: Task): string {
  return `## Task\n${quoteBlock(task.instruction)}`;
}

export function demonstrationsSection(
  demonstrations: readonly RetrievedTransition[],
  options: ResolvedPromptOptions,
): string {
  if (demonstrations.length === 0)
    return '## Demonstrations\n(none retrieved: rely on the description of the environment)';
  const written = demonstrations.map((d, i) => options.formatDemonstration(d, i, options.limits));
  return `## Demonstrations: real transitions of similar steps, most similar first\n${written.join('\n\n')}`;
}

/** The default demonstration: state, action → next state, its actions, reward and termination. */
export function formatDemonstration(
  d: RetrievedTransition,
  index: number,
  limits: TextLimits,
): string {
  return [
    `### Demonstration ${index + 1} (similarity ${d.similarity.toFixed(2)}; step ${d.t + 1} of an episode of: ${clip(quoteLine(d.task.instruction), 300)})`,
    `State:\n${quoteBlock(fitText(d.state.text, limits.demonstration, { action: d.action }))}`,
    `Action: ${quoteAction(d.action, limits)}`,
    `Next state:\n${quoteBlock(fitText(d.nextState.text, limits.demonstration, { action: d.action, before: d.state.text }))}`,
    ...(d.nextState.actions
      ? [`Next admissible actions: ${actionList(d.nextState.actions, limits.demonstrationActions)}`]
      : []),
    `Reward: ${d.reward} · terminated: ${d.terminated}`,
  ].join('\n');
}

/** The last `historyWindow` steps, oldest first, and how many earlier ones are left out. */
export function historySection(history: readonly Step[], options: ResolvedPromptOptions): string {
  if (history.length === 0) return '## History\n(none: this is the first step of the episode)';
  const shown = options.historyWindow === 0 ? [] : history.slice(-options.historyWindow);
  const first = history.length - shown.length;
  const heading =
    first === 0
      ? `## History: all ${history.length} steps so far, oldest first`
      : `## History: the last ${shown.length} of ${history.length} steps, oldest first (${first} earlier not shown)`;
  const steps = shown.map((step, i) => {
    // The last observation is the current state, written out in full below.
    const outcome = step.info?.invalidAction
      ? 'Observation: (unchanged: the action was not admissible)'
      : i === shown.length - 1
        ? 'Observation: (the current state, below)'
        : `Observation:\n${quoteBlock(fitText(step.observation.text, options.limits.history, { action: shown[i + 1]?.action }))}`;
    return `### Step ${first + i + 1}\nAction: ${quoteAction(step.action, options.limits)}\n${outcome}\nReward: ${step.reward}`;
  });
  return [heading, ...steps].join('\n');
}

/** The current state; a tree page over `limit` is pruned around the target of `action`. */
export function stateSection(state: Observation, limit: number, action?: string): string {
  const actions = state.actions ? `\nAdmissible actions: ${actionList(state.actions)}` : '';
  return `## Current state\n${quoteBlock(fitText(state.text, limit, action === undefined ? {} : { action }))}${actions}`;
}

/**
 * Untrusted text — an env's page, a task instruction from a trainer or a task generator —
 * written into the prompt so that it cannot open a section of its own: a line of it that starts
 * like a Markdown heading gets a backslash (`\## Task`, Markdown's escape), so the prompt's own
 * headings are the only ones. Everything else stays as written: the model must see states in
 * their real format.
 */
export function quoteBlock(text: string): string {
  return text.replace(/^([ \t]*)#/gm, '$1\\#');
}

/**
 * Untrusted text written on one line (an action, an instruction in a header): line breaks and
 * other control characters escaped as in JSON (`\n`), so it can start no line of the prompt.
 * Ordinary text is unchanged.
 */
export function quoteLine(text: string): string {
  return text.replace(
    /[\p{Cc}\u2028\u2029]/gu,
    (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** An action as the prompt shows it: on one line ({@link quoteLine}), clipped to `limits.action`. */
function quoteAction(action: string, limits: TextLimits): string {
  return quoteLine(clip(action, limits.action));
}

/** Actions as a JSON array, the form the answer uses; past `max`, a count of the rest. */
export function actionList(actions: readonly string[], max = Number.POSITIVE_INFINITY): string {
  const listed = JSON.stringify(actions.slice(0, max));
  return actions.length > max ? `${listed} and ${actions.length - max} more` : listed;
}

/**
 * `text` within `max` characters: an accessibility-tree page pruned ({@link pruneTree}: the
 * header, the action target's region, the changed lines, the focused element, headings, links
 * and fields, with markers where lines were cut), any other text clipped ({@link clip}).
 */
export function fitText(text: string, max: number, focus: PruneFocus = {}): string {
  return clip(pruneTree(text, max, focus), max);
}

/**
 * `text` cut to about `max` characters: its head and tail with a marker between them. Both ends
 * matter in env pages (buttons and headers at the top, the last items and prices at the bottom).
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} characters cut …]\n${tail > 0 ? text.slice(-tail) : ''}`;
}
