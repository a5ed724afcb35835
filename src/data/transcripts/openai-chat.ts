/**
 * Reads OpenAI chat-format transcripts with tool calls (JSON Lines, one conversation a line) into
 * trajectories. See docs/transcripts.md.
 *
 * A line is `{"id"?, "task_id"?, "model"?, "messages": [...], outcome fields?, "metadata"?, …}`
 * with messages `{role: system|developer|user|assistant|tool, content, tool_calls?, tool_call_id?}`.
 * The user's first message (with any user messages before the first reply) is the instruction;
 * each assistant tool call is an action `name({json})` whose observation is the tool message with
 * its id; an assistant text without tool calls is an action `answer[text]` whose observation is
 * the user's next message (`user: …`), or '' at the end. A user message after tool results is
 * added to the last result as `user: …`. Other top-level fields (`tools`, …) are ignored.
 */

import { DataFormatError } from '../../core/errors.ts';
import type { Trajectory } from '../../core/types.ts';
import { formatAnswer } from '../../envs/mcp/action-syntax.ts';
import { TrajectoryFormatError } from '../trajectory-format.ts';
import { draftToTrajectory, type EpisodeStep, stableHash, taskIdOf } from './episode.ts';
import { parseJsonLines } from './json-lines.ts';
import { combineOutcomes, type Outcome, outcomeFromFields } from './outcome.ts';
import { parseToolArguments, toolCallAction } from './tool-call-action.ts';
import { describeValue, isObject, TranscriptProblem } from './transcript-problem.ts';
import {
  type TranscriptRead,
  type TranscriptReadOptions,
  unmatchedOutcomeWarnings,
} from './transcript-reader.ts';

/** The message roles a conversation may hold; `system` and `developer` messages are not steps. */
export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/** The policy id recorded when a conversation names no `model`. */
export const UNKNOWN_CHAT_POLICY = 'transcript';

/**
 * Reads a JSON Lines text of OpenAI chat conversations, one episode each, all or nothing: the
 * first malformed conversation throws a `DataFormatError` naming the file, the line and the
 * reason (bad JSON, no messages, an unknown role, a tool message answering no call, a call no
 * tool message answers, no outcome, …).
 */
export function readOpenAiChat(text: string, options: TranscriptReadOptions): TranscriptRead {
  const { file } = options;
  const importedAt = (options.importedAt ?? new Date()).toISOString();
  const trajectories: Trajectory[] = [];
  const lineOfId = new Map<string, number>();
  const matched = new Set<string>();
  for (const { line, value, text: raw } of parseJsonLines(text, file, 'one conversation')) {
    try {
      const conversation = readConversation(value, raw, options, importedAt);
      const earlier = lineOfId.get(conversation.trajectory.id);
      if (earlier !== undefined) {
        throw new TranscriptProblem(
          conversation.outcomeKey === undefined
            ? `the same conversation as line ${earlier}; remove one copy`
            : `id ${JSON.stringify(conversation.outcomeKey)} is already used on line ${earlier}; ids must be unique`,
        );
      }
      lineOfId.set(conversation.trajectory.id, line);
      if (conversation.outcomeKey !== undefined) matched.add(conversation.outcomeKey);
      trajectories.push(conversation.trajectory);
    } catch (error) {
      if (error instanceof TranscriptProblem || error instanceof TrajectoryFormatError) {
        throw new DataFormatError(file, line, error.message);
      }
      throw error;
    }
  }
  return { trajectories, warnings: unmatchedOutcomeWarnings(options.outcomes, matched) };
}

interface Conversation {
  trajectory: Trajectory;
  /** The conversation's own id, which outcome files refer to; undefined when it has none. */
  outcomeKey?: string;
}

function readConversation(
  value: unknown,
  raw: string,
  options: TranscriptReadOptions,
  importedAt: string,
): Conversation {
  if (!isObject(value)) {
    throw new TranscriptProblem(
      `expected a JSON object (one conversation per line, {"messages": [...]}), got ${describeValue(value)}`,
    );
  }
  const { messages } = value;
  if (messages === undefined) {
    throw new TranscriptProblem(
      'messages: missing; each line is one conversation {"messages": [{"role": "user", "content": …}, …]}',
    );
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new TranscriptProblem(
      `messages: expected a non-empty array of messages, got ${describeValue(messages)}`,
    );
  }
  const outcomeKey = optionalId(value.id, 'id');
  const taskId = optionalId(value.task_id, 'task_id');
  const { instruction, steps } = walkMessages(messages);
  const outcome = conversationOutcome(value, outcomeKey, options);
  const model = value.model;
  const trajectory = draftToTrajectory({
    id: `chat-${outcomeKey ?? stableHash(raw.trim())}`,
    env: options.env,
    taskId: taskId ?? taskIdOf(instruction),
    instruction,
    steps,
    reward: outcome.reward,
    policyId: typeof model === 'string' && model !== '' ? model : UNKNOWN_CHAT_POLICY,
    startedAt: importedAt,
    endedAt: importedAt,
  });
  return outcomeKey === undefined ? { trajectory } : { trajectory, outcomeKey };
}

function optionalId(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
    return String(value);
  }
  throw new TranscriptProblem(
    `${field}: expected a non-empty string or a number, got ${describeValue(value)}`,
  );
}

function conversationOutcome(
  conversation: Record<string, unknown>,
  id: string | undefined,
  options: TranscriptReadOptions,
): Outcome {
  const { metadata } = conversation;
  const fromFile = id === undefined ? undefined : options.outcomes?.get(id);
  const outcome = combineOutcomes(
    [
      outcomeFromFields(conversation, "the conversation's"),
      isObject(metadata) ? outcomeFromFields(metadata, "the conversation's metadata") : undefined,
      fromFile,
    ].filter((o): o is Outcome => o !== undefined),
  );
  if (outcome) return outcome;
  const file = options.outcomes
    ? id === undefined
      ? '; the outcomes file matches conversations by "id" and this one has none'
      : `; the outcomes file has no line for id ${JSON.stringify(id)}`
    : id === undefined
      ? ', or give the conversation an "id" and pass an outcomes file (--outcomes) with {"id": …, "reward": …}'
      : `, or pass an outcomes file (--outcomes) with {"id": ${JSON.stringify(id)}, "reward": …}`;
  throw new TranscriptProblem(
    `no outcome: add "reward": 1, "success": true or "outcome": "success" (or "failure") to the conversation${file}`,
  );
}

/** A tool call waiting for the tool message that answers it. */
interface PendingCall {
  step: EpisodeStep;
  name: string;
  /** Index of the assistant message that made the call. */
  madeAt: number;
  answered: boolean;
}

/** Walks the messages in order, turning them into the instruction and the steps. */
function walkMessages(messages: unknown[]): { instruction: string; steps: EpisodeStep[] } {
  const request: string[] = [];
  const steps: EpisodeStep[] = [];
  const calls = new Map<string, PendingCall>();
  const requireAnswered = (before: string) => {
    for (const [id, call] of calls) {
      if (!call.answered) {
        throw new TranscriptProblem(
          `tool call ${JSON.stringify(id)} (${call.name}) made in messages[${call.madeAt}] has no tool message answering it ${before}`,
        );
      }
    }
  };

  messages.forEach((message, at) => {
    const where = `messages[${at}]`;
    if (!isObject(message)) {
      throw new TranscriptProblem(
        `${where}: expected a message object, got ${describeValue(message)}`,
      );
    }
    const role = message.role;
    if (!(CHAT_ROLES as readonly unknown[]).includes(role)) {
      throw new TranscriptProblem(
        `${where}.role: ${role === undefined ? 'missing' : `unknown role ${describeValue(role)}`}; expected one of ${CHAT_ROLES.join(', ')}`,
      );
    }
    if (role === 'system' || role === 'developer') return;
    if (role === 'user') {
      requireAnswered(`before ${where}, a user message`);
      const text = contentText(message.content, where);
      const last = steps.at(-1);
      if (!last) request.push(text);
      else
        last.observation = [last.observation, `user: ${text}`].filter((t) => t !== '').join('\n');
      return;
    }
    if (role === 'tool') {
      const id = message.tool_call_id;
      if (typeof id !== 'string' || id === '') {
        throw new TranscriptProblem(
          `${where}.tool_call_id: expected the id of the call it answers, got ${describeValue(id)}`,
        );
      }
      const call = calls.get(id);
      if (!call) {
        throw new TranscriptProblem(
          `${where}: tool message answers call ${JSON.stringify(id)}, but no earlier assistant message made a call with that id`,
        );
      }
      if (call.answered) {
        throw new TranscriptProblem(
          `${where}: tool message answers call ${JSON.stringify(id)} a second time`,
        );
      }
      call.answered = true;
      call.step.observation = contentText(message.content, where);
      return;
    }
    if (request.length === 0) {
      throw new TranscriptProblem(
        `${where}: assistant message before the first user message; an episode starts at the user's request`,
      );
    }
    requireAnswered(`before ${where}, the next assistant message`);
    const text = contentText(message.content, where);
    const toolCalls = message.tool_calls ?? [];
    if (!Array.isArray(toolCalls)) {
      throw new TranscriptProblem(
        `${where}.tool_calls: expected an array, got ${describeValue(toolCalls)}`,
      );
    }
    if (toolCalls.length === 0) {
      if (text.trim() === '') {
        throw new TranscriptProblem(`${where}: assistant message with neither text nor tool calls`);
      }
      steps.push({ action: formatAnswer(text), observation: '' });
      return;
    }
    toolCalls.forEach((toolCall, k) => {
      const { id, name, args } = readToolCall(toolCall, `${where}.tool_calls[${k}]`);
      if (calls.has(id)) {
        throw new TranscriptProblem(
          `${where}.tool_calls[${k}].id: ${JSON.stringify(id)} was already used by an earlier call`,
        );
      }
      const step: EpisodeStep = {
        action: toolCallAction(name, args),
        observation: '',
        toolCallId: id,
      };
      if (k === 0 && text.trim() !== '') step.reasoning = text;
      steps.push(step);
      calls.set(id, { step, name, madeAt: at, answered: false });
    });
  });
  requireAnswered('before the conversation ends');
  const instruction = request.join('\n');
  if (instruction.trim() === '') {
    throw new TranscriptProblem(
      'messages: no user message with text; the first one is the instruction',
    );
  }
  if (steps.length === 0) {
    throw new TranscriptProblem(
      "messages: no assistant message after the user's request; there is no action to import",
    );
  }
  return { instruction, steps };
}

function readToolCall(
  toolCall: unknown,
  where: string,
): { id: string; name: string; args: Record<string, unknown> } {
  if (!isObject(toolCall)) {
    throw new TranscriptProblem(
      `${where}: expected a tool call object, got ${describeValue(toolCall)}`,
    );
  }
  if (toolCall.type !== undefined && toolCall.type !== 'function') {
    throw new TranscriptProblem(
      `${where}.type: only "function" tool calls can be imported, got ${describeValue(toolCall.type)}`,
    );
  }
  const { id } = toolCall;
  if (typeof id !== 'string' || id === '') {
    throw new TranscriptProblem(
      `${where}.id: expected a non-empty string, got ${describeValue(id)}`,
    );
  }
  const fn = toolCall.function;
  if (!isObject(fn) || typeof fn.name !== 'string') {
    throw new TranscriptProblem(
      `${where}.function: expected {"name": …, "arguments": "{…}"}, got ${describeValue(fn)}`,
    );
  }
  try {
    return { id, name: fn.name, args: parseToolArguments(fn.arguments ?? '') };
  } catch (error) {
    if (error instanceof TranscriptProblem) {
      throw new TranscriptProblem(`${where}.function.arguments: ${error.message}`);
    }
    throw error;
  }
}

/** A message's text: a string, null (none), or an array of text parts joined. */
function contentText(content: unknown, where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw new TranscriptProblem(
      `${where}.content: expected a string or an array of text parts, got ${describeValue(content)}`,
    );
  }
  return content
    .map((part, i) => {
      if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
      if (isObject(part) && part.type === 'refusal' && typeof part.refusal === 'string') {
        return part.refusal;
      }
      const type = isObject(part) ? describeValue(part.type) : describeValue(part);
      throw new TranscriptProblem(
        `${where}.content[${i}]: a part of type ${type}; only text parts can be imported`,
      );
    })
    .join('');
}
