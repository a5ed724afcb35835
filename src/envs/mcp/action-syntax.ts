/**
 * The text syntax of actions in an MCP env, one form per kind so that every string parses one way:
 *
 * - a tool call is the tool's name and one JSON object in parentheses: `lend_book({"book_id":
 *   "b3", "member": "ada"})`; a call without arguments is `list_loans()` (or `list_loans({})`);
 * - the final answer, which ends the episode, is `answer[text]` (square brackets, any text).
 *
 * A tool named `answer` is still called `answer({...})`: parentheses and brackets never mix.
 */

/** One call of a tool with its JSON arguments, as actions, setup steps and checks name it. */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** A parsed action: a tool call or the final answer. */
export type McpAction = ({ kind: 'call' } & ToolCall) | { kind: 'answer'; text: string };

/** Why a text is not an action, with the form to write instead. */
export interface MalformedAction {
  invalid: string;
}

/** The admissible-action template of the final answer. */
export const ANSWER_TEMPLATE = 'answer[<text>]';

/** Characters of a tool name: MCP's `[A-Za-z0-9_.-]`, plus `/` that some servers use. */
const TOOL_NAME = /^[A-Za-z0-9_./-]+$/;
const ANSWER = /^answer\s*\[([\s\S]*)\]$/;
const CALL = /^([A-Za-z0-9_./-]+)\s*\(([\s\S]*)\)$/;
const FORMS = 'call a tool as name({"arg": value}) or name(), or finish with answer[text]';

/** Parses one action text; anything that is not exactly one of the two forms says why. */
export function parseMcpAction(text: string): McpAction | MalformedAction {
  const action = text.trim();
  if (action === '') return { invalid: `the action is empty; ${FORMS}` };
  const answer = ANSWER.exec(action);
  if (answer) return { kind: 'answer', text: (answer[1] as string).trim() };
  const call = CALL.exec(action);
  if (!call) {
    if (TOOL_NAME.test(action)) {
      return { invalid: `"${action}" has no argument list; write ${action}() or ${action}({...})` };
    }
    return { invalid: `"${clip(action)}" is not an action; ${FORMS}` };
  }
  const tool = call[1] as string;
  const body = (call[2] as string).trim();
  if (body === '') return { kind: 'call', tool, arguments: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return {
      invalid: `the arguments of ${tool} are not JSON (${(error as Error).message}); write one JSON object, e.g. ${tool}({"key": "value"})`,
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      invalid: `the arguments of ${tool} must be one JSON object, not ${describeJson(parsed)}; e.g. ${tool}({"key": "value"})`,
    };
  }
  return { kind: 'call', tool, arguments: parsed as Record<string, unknown> };
}

/** The action text of a call: `tool()` without arguments, else `tool({...})` with compact JSON. */
export function formatToolCall(call: ToolCall): string {
  const hasArguments = Object.keys(call.arguments).length > 0;
  return `${call.tool}(${hasArguments ? JSON.stringify(call.arguments) : ''})`;
}

/** The action text of a final answer. */
export function formatAnswer(text: string): string {
  return `answer[${text}]`;
}

/** True when `name` can be written in the call syntax. */
export function isToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
