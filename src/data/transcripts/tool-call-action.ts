/**
 * Actions read from transcripts are written in the MCP env's action syntax
 * (`envs/mcp/action-syntax.ts`), so imported experience and MCP envs speak one language: a tool
 * call is the tool's name and its JSON arguments in parentheses, `lookup_order({"order_id":"A1"})`,
 * or `list_orders()` without arguments; a final text answer is `answer[text]`.
 */

import { formatToolCall, isToolName } from '../../envs/mcp/action-syntax.ts';
import { isObject, TranscriptProblem } from './transcript-problem.ts';

/** The action for a call of tool `name` with `args`, e.g. `name({"key":"value"})`. */
export function toolCallAction(name: string, args: Record<string, unknown>): string {
  if (!isToolName(name)) {
    throw new TranscriptProblem(
      `tool name ${JSON.stringify(name)} cannot be written as an action name({...}): a tool name is letters, digits and _ . / - only`,
    );
  }
  return formatToolCall({ tool: name, arguments: args });
}

/**
 * A tool call's arguments as recorded: a JSON text (OpenAI's `function.arguments`, the AI SDK's
 * `ai.toolCall.args`) or an already parsed object. An empty text means no arguments.
 */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  if (isObject(raw)) return raw;
  if (typeof raw !== 'string') {
    throw new TranscriptProblem(
      `tool arguments must be a JSON object or its text, got ${raw === null ? 'null' : typeof raw}`,
    );
  }
  if (raw.trim() === '') return {};
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch (error) {
    throw new TranscriptProblem(
      `tool arguments are not valid JSON (${(error as Error).message}): ${abbreviate(raw)}`,
    );
  }
  if (!isObject(args)) {
    throw new TranscriptProblem(`tool arguments must be a JSON object, got ${abbreviate(raw)}`);
  }
  return args;
}

function abbreviate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
