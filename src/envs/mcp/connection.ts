import { setImmediate as nextTurn } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolCall } from './action-syntax.ts';
import type { McpServerSpec } from './config.ts';
import { McpServerError } from './errors.ts';

/** What a tool call came to: the server's result, or the server's refusal (a JSON-RPC error). */
export type CallOutcome = { result: CallToolResult } | { refused: string };

/** How much of the server's stderr is kept for error messages. */
const STDERR_TAIL = 2000;

/** The server as errors name it. */
function describeServer(family: string, spec: McpServerSpec): string {
  if (spec.transport === 'http') return `${family} at ${spec.url}`;
  return `${family} (${[spec.command, ...spec.args].join(' ')})`;
}

/**
 * One open MCP client session with a server, through the official SDK: a spawned process over
 * stdio or a Streamable HTTP session. It lists the tools once when it opens. A failure of the
 * connection itself (the process exited, HTTP failed, a request timed out) is an
 * {@link McpServerError} and leaves the connection dead; a JSON-RPC error answer is the server
 * refusing one request, and comes back as such.
 */
export class McpConnection {
  private dead = false;
  private stderrTail = '';
  /**
   * The SDK's report of a message over its stdio size limit, on which it closes the connection.
   * Kept apart from its later errors: the rest of that message arrives after and fails to parse.
   */
  private oversize: Error | undefined;

  private constructor(
    private readonly client: Client,
    private readonly transport: StdioClientTransport | StreamableHTTPClientTransport,
    /** Named in errors. */
    readonly server: string,
    private readonly timeoutMs: number,
    /** The server's tools, in its order. */
    readonly tools: Tool[] = [],
  ) {}

  /** The server's instructions to clients (MCP's `initialize` result), if it gave any. */
  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  /** False once the connection failed or closed; a dead connection is replaced, not reused. */
  get alive(): boolean {
    return !this.dead;
  }

  /**
   * Starts (stdio) or reaches (HTTP) the server, initializes the session and lists its tools.
   * Any failure closes what was opened and is an {@link McpServerError}.
   */
  static async open(
    family: string,
    spec: McpServerSpec,
    timeouts: { startMs: number; callMs: number },
  ): Promise<McpConnection> {
    const transport =
      spec.transport === 'stdio'
        ? new StdioClientTransport({
            command: spec.command,
            args: spec.args,
            cwd: spec.cwd,
            stderr: 'pipe',
            ...(spec.env && { env: spec.env }),
          })
        : new StreamableHTTPClientTransport(new URL(spec.url), {
            ...(spec.headers && { requestInit: { headers: spec.headers } }),
          });
    const client = new Client({ name: 'dreamgym', version: '1' });
    const connection = new McpConnection(
      client,
      transport,
      describeServer(family, spec),
      timeouts.callMs,
    );
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on('data', (chunk: Buffer) => {
        connection.stderrTail = (connection.stderrTail + chunk.toString()).slice(-STDERR_TAIL);
      });
    }
    client.onclose = () => {
      connection.dead = true;
    };
    client.onerror = (error) => {
      if (isOversize(error)) connection.oversize ??= error;
    };
    let request = 'initialize';
    try {
      await client.connect(transport, { timeout: timeouts.startMs });
      request = 'tools/list';
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, {
          timeout: timeouts.startMs,
        });
        connection.tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (error) {
      const failure = await connection.failure(request, error, spec);
      await connection.close();
      throw failure;
    }
    return connection;
  }

  /**
   * Calls a tool. A JSON-RPC error answer comes back as `{ refused }`; a connection failure
   * throws an {@link McpServerError} and kills the connection.
   */
  async call(call: ToolCall): Promise<CallOutcome> {
    const request = `tools/call ${call.tool}`;
    if (this.dead) throw await this.failure(request, new Error('the connection is closed'));
    try {
      const result = await this.client.callTool(
        { name: call.tool, arguments: call.arguments },
        undefined,
        { timeout: this.timeoutMs },
      );
      if (!('content' in result)) {
        // A server of MCP's first protocol version answers `{ toolResult }`.
        return {
          result: { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] },
        };
      }
      return { result: result as CallToolResult };
    } catch (error) {
      if (error instanceof McpError && !isConnectionFailure(error)) {
        return { refused: error.message };
      }
      throw await this.failure(request, error);
    }
  }

  /** Ends the session (and the server process, over stdio). Never throws; idempotent. */
  async close(): Promise<void> {
    this.dead = true;
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
      await this.transport.terminateSession().catch(() => undefined);
    }
    await this.client.close().catch(() => undefined);
  }

  /**
   * The error for a failed request (`opening`: the server being started or reached); the
   * connection is dead from now on.
   */
  private async failure(
    request: string,
    error: unknown,
    opening?: McpServerSpec,
  ): Promise<McpServerError> {
    this.dead = true;
    await nextTurn(); // lets the last of a crashed process's stderr arrive
    const { oversize } = this;
    const message = error instanceof Error ? error.message : String(error);
    const cause = oversize ? `${message} (${oversize.message})` : message;
    const stderr = this.stderrTail.trim();
    const problem = stderr ? `${cause}; the server's stderr ended with:\n${stderr}\n` : cause;
    return new McpServerError(
      this.server,
      request,
      problem,
      oversize ? OVERSIZE_FIX : fixFor(error, opening),
    );
  }
}

/** The fix for a message over the SDK's stdio limit: it closes the connection on one. */
const OVERSIZE_FIX = `The server sent a message over ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024} MB, the MCP SDK's limit for one message over stdio, and the SDK closed the connection: have the tool return less (dreamgym keeps only the first --max-observation-chars of a result anyway). reset() reconnects`;

/** True for the SDK's report of a stdio message over its size limit. */
function isOversize(error: Error): boolean {
  return /ReadBuffer exceeded maximum size/.test(error.message);
}

/** True for the SDK's own errors about the connection, not the server's answers. */
function isConnectionFailure(error: McpError): boolean {
  return error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout;
}

/** What to do about a failure while `opening` the server, or (without it) during a call. */
function fixFor(error: unknown, opening?: McpServerSpec): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && opening?.transport === 'stdio') {
    return `"${opening.command}" was not found: check "command" in the config (and that it is installed and on PATH)`;
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    const knob = opening ? 'startTimeoutMs' : 'timeoutMs';
    return `The server did not answer in time: raise "${knob}" in the config or check the server; reset() reconnects`;
  }
  if (opening?.transport === 'http') {
    return `Check that the server is running and serves MCP's Streamable HTTP transport at ${opening.url}`;
  }
  if (opening?.transport === 'stdio') {
    return 'Check that the command starts an MCP server speaking over stdin/stdout (run it by hand to see its errors)';
  }
  return 'The server stopped or broke off; see its log. reset() reconnects (a stdio server is started again)';
}
