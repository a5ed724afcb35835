import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import {
  ConfigError,
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from '../../core/errors.ts';
import { copyObservation, type Observation, type Task } from '../../core/types.ts';
import type { Env, ResetOptions, ResetResult, StepResult, TaskSplit } from '../env.ts';
import { ANSWER_TEMPLATE, formatToolCall, parseMcpAction } from './action-syntax.ts';
import { agentTools } from './agent-tools.ts';
import { matchesText, type SuccessCheck } from './check.ts';
import type { McpConfig } from './config.ts';
import { type CallOutcome, McpConnection } from './connection.ts';
import { resultText } from './result-text.ts';
import { McpTaskSource, type McpTaskSpec, mcpTaskSpec } from './tasks.ts';
import { toolSignature, toolTemplate } from './tool-listing.ts';

/** How to make an {@link McpEnv}. */
export interface McpEnvOptions {
  config: McpConfig;
  /** The split `reset({ seed })` draws from when no task is given. Default `train`. */
  split?: TaskSplit;
}

/** A tool the agent may call, with its argument check. */
interface AgentTool {
  tool: Tool;
  template: string;
  validate: JsonSchemaValidator<unknown>;
}

/** What the agent sees of the server's tools: the reset text and the admissible actions. */
interface ToolListing {
  tools: Map<string, AgentTool>;
  text: string;
  actions: string[];
}

/**
 * An MCP tool server as an {@link Env} (family `mcp:NAME`). The server's tools are the actions,
 * written `tool({"arg": value})` (see `action-syntax.ts`), and their results the observations;
 * `answer[text]` ends the episode, and the task's success check gives reward 1 or 0. The
 * admissible actions are one template per tool plus `answer[<text>]`.
 *
 * `reset` connects on first use, resets the server as the config says (restart, a reset tool, or
 * nothing), runs the task's setup calls and shows the tools. An invalid call — malformed, an
 * unknown or hidden tool, arguments outside the tool's input schema, or one the server refuses
 * with a JSON-RPC error — changes nothing and says why in `info.invalidAction`. A tool that
 * reports an error (`isError`) did run: its text is the observation, `info.toolError` is set. If
 * the server dies or stops answering, the step throws an `McpServerError` and the episode is
 * over; the next `reset` reconnects.
 */
export class McpEnv implements Env {
  readonly name: string;
  readonly taskSource: McpTaskSource;
  private readonly config: McpConfig;
  private readonly split: TaskSplit;
  private readonly validators = new Map<string, JsonSchemaValidator<unknown>>();
  private readonly ajv = new AjvJsonSchemaValidator();
  private connection: McpConnection | undefined;
  private listing: ToolListing | undefined;
  private current: Observation | undefined;
  private check: SuccessCheck | undefined;
  private ended: 'terminated' | 'truncated' | undefined;
  private closed = false;

  constructor(options: McpEnvOptions) {
    this.config = options.config;
    this.name = `mcp:${options.config.name}`;
    this.taskSource = new McpTaskSource(this.name, options.config.tasks, options.config.tasksFile);
    this.split = options.split ?? 'train';
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.taskSource.draw(this.split, options.seed ?? 0);
    const spec = mcpTaskSpec(task, this.name);
    this.current = undefined;
    this.ended = undefined;
    const { connection, listing } = await this.resetServer();
    this.requireTools(task, spec, connection);
    for (const call of spec.setup) {
      const failure = problemOf(await connection.call(call));
      if (failure) {
        throw new TaskError(
          `task ${task.id}: setup call ${formatToolCall(call)} failed: "${failure}". Fix the task's "setup" (task file ${this.config.tasksFile}).`,
        );
      }
    }
    this.check = spec.check;
    this.current = { text: listing.text, instruction: task.instruction, actions: listing.actions };
    return { observation: copyObservation(this.current), info: { task } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    if (this.ended) throw new EpisodeEndedError(this.name, this.ended);
    const current = this.current;
    const { connection, listing, check } = this;
    if (!current || !connection || !listing || !check) throw new EnvNotResetError(this.name);
    const parsed = parseMcpAction(action);
    if ('invalid' in parsed) return refusal(current, parsed.invalid);
    // Until the server has answered there is no current state: a failed call drops the episode.
    if (parsed.kind === 'answer') {
      this.current = undefined;
      return this.finish(current, parsed.text, check, connection);
    }
    const tool = listing.tools.get(parsed.tool);
    if (!tool) {
      return refusal(
        current,
        `no tool "${parsed.tool}" on this server; the tools are ${[...listing.tools.keys()].join(', ') || 'none'}`,
      );
    }
    const fit = tool.validate(parsed.arguments);
    if (!fit.valid) {
      return refusal(
        current,
        `the arguments do not fit the input schema of ${parsed.tool}: ${fit.errorMessage}; e.g. ${tool.template}`,
      );
    }
    this.current = undefined;
    const outcome = await connection.call(parsed);
    if ('refused' in outcome) {
      this.current = current;
      return refusal(current, `the server refused the call: ${outcome.refused}`);
    }
    const text = resultText(outcome.result);
    const toolError = outcome.result.isError === true;
    this.current = {
      text: toolError ? `Tool error: ${text}` : text,
      instruction: current.instruction,
      actions: listing.actions,
    };
    return {
      observation: copyObservation(this.current),
      reward: 0,
      terminated: false,
      truncated: false,
      info: toolError ? { toolError: true } : {},
    };
  }

  /** Ends the session and, over stdio, the server process. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.current = undefined;
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }

  /** Judges the answer with the task's check: reward 1 when every part of it holds. */
  private async finish(
    current: Observation,
    answer: string,
    check: SuccessCheck,
    connection: McpConnection,
  ): Promise<StepResult> {
    const info: Record<string, unknown> = { answer };
    let success = check.answer === undefined || matchesText(answer, check.answer);
    if (check.call) {
      const outcome = await connection.call(check.call);
      if ('refused' in outcome) {
        throw new TaskError(
          `the success check ${formatToolCall(check.call)} was refused by the server: "${outcome.refused}". Fix the task's "check.call" (task file ${this.config.tasksFile}).`,
        );
      }
      const text = resultText(outcome.result);
      info.checkResult = text;
      success &&= outcome.result.isError !== true && matchesText(text, check.call.expect);
    }
    info.success = success;
    this.ended = 'terminated';
    this.current = {
      text: `Answer submitted: ${answer}`,
      instruction: current.instruction,
      actions: [],
    };
    return {
      observation: copyObservation(this.current),
      reward: success ? 1 : 0,
      terminated: true,
      truncated: false,
      info,
    };
  }

  /** An open connection to a server reset as the config says, and the agent's view of its tools. */
  private async resetServer(): Promise<{ connection: McpConnection; listing: ToolListing }> {
    const { reset } = this.config;
    let connection = this.connection;
    if (!connection?.alive || reset.kind === 'restart') {
      this.connection = undefined;
      this.listing = undefined;
      await connection?.close();
      connection = await McpConnection.open(this.name, this.config.server, {
        startMs: this.config.startTimeoutMs,
        callMs: this.config.timeoutMs,
      });
      if (this.closed) {
        await connection.close();
        throw new EnvClosedError(this.name);
      }
      this.connection = connection;
    }
    if (reset.kind === 'tool') {
      if (!connection.tools.some((t) => t.name === reset.tool)) {
        throw new ConfigError(
          `${connection.server} has no reset tool "${reset.tool}" (its tools: ${toolNames(connection)}); fix "reset" in the config.`,
        );
      }
      const failure = problemOf(await connection.call(reset));
      if (failure) {
        throw new ConfigError(
          `${connection.server}: the reset call ${formatToolCall(reset)} failed: "${failure}". Fix "reset" in the config.`,
        );
      }
    }
    this.listing ??= this.listTools(connection);
    return { connection, listing: this.listing };
  }

  /** The tools open to the agent ({@link agentTools}), described. */
  private listTools(connection: McpConnection): ToolListing {
    const tools = new Map<string, AgentTool>();
    for (const tool of agentTools(connection.tools, this.config)) {
      tools.set(tool.name, { tool, template: toolTemplate(tool), validate: this.validator(tool) });
    }
    const lines = [...tools.values()].map(({ tool }) => `- ${toolSignature(tool)}`);
    const instructions = connection.instructions?.trim();
    const text = [
      ...(instructions ? [`Server instructions: ${instructions}`] : []),
      `Tools of ${this.name}:`,
      ...lines,
      'Call a tool as name({"arg": value}) with JSON arguments, or name() without; finish with answer[text].',
    ].join('\n');
    const actions = [...[...tools.values()].map((t) => t.template), ANSWER_TEMPLATE];
    return { tools, text, actions };
  }

  /** The input check of a tool, compiled once per schema (AJV keeps every schema it compiles). */
  private validator(tool: Tool): JsonSchemaValidator<unknown> {
    const key = JSON.stringify(tool.inputSchema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.getValidator(tool.inputSchema as JsonSchemaType);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Refuses a task whose setup or check names a tool the server does not have. */
  private requireTools(task: Task, spec: McpTaskSpec, connection: McpConnection): void {
    const named = [...spec.setup, ...(spec.check.call ? [spec.check.call] : [])];
    const missing = named.filter((call) => !connection.tools.some((t) => t.name === call.tool));
    if (missing.length > 0) {
      throw new TaskError(
        `task ${task.id} calls ${missing.map((c) => `"${c.tool}"`).join(', ')}, which ${connection.server} does not have (its tools: ${toolNames(connection)}); fix the task file ${this.config.tasksFile}.`,
      );
    }
  }
}

function toolNames(connection: McpConnection): string {
  return connection.tools.map((t) => t.name).join(', ') || 'none';
}

/** Why a setup or reset call did not work, or undefined when it did. */
function problemOf(outcome: CallOutcome): string | undefined {
  if ('refused' in outcome) return outcome.refused;
  if (outcome.result.isError) return resultText(outcome.result);
  return undefined;
}

function refusal(current: Observation, why: string): StepResult {
  return {
    observation: copyObservation(current),
    reward: 0,
    terminated: false,
    truncated: false,
    info: { invalidAction: why },
  };
}
