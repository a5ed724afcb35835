import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { ToolCall } from './action-syntax.ts';
import { schemaProblem } from './schema-problem.ts';
import { loadMcpTasks, type McpTaskDefinition, toolCallSchema } from './tasks.ts';

/** How to reach the server: a command speaking MCP over stdio, or a Streamable HTTP endpoint. */
export type McpServerSpec =
  | {
      transport: 'stdio';
      command: string;
      args: string[];
      /** Added to the SDK's safe default environment (PATH, HOME, …). */
      env?: Record<string, string>;
      /** Absolute; the config's folder unless the config says otherwise. */
      cwd: string;
    }
  | { transport: 'http'; url: string; headers?: Record<string, string> };

/**
 * What a reset does to the server before the task's setup calls: `restart` starts it afresh (a
 * new process over stdio, a new session over HTTP), `tool` calls a reset tool on the open
 * connection (which the agent then cannot call), `none` leaves it as it is.
 */
export type McpResetMode = { kind: 'restart' } | { kind: 'none' } | ({ kind: 'tool' } & ToolCall);

/** An MCP env's config, checked and with its task file read; paths are absolute. */
export interface McpConfig {
  /** The env family is `mcp:<name>`. */
  name: string;
  server: McpServerSpec;
  /** The task file's path. */
  tasksFile: string;
  tasks: McpTaskDefinition[];
  reset: McpResetMode;
  maxSteps: number;
  /** Time limit of each request to the server, in ms. */
  timeoutMs: number;
  /** Time limit for the server to start and answer MCP's handshake and tool listing, in ms. */
  startTimeoutMs: number;
  /** Tools the agent may not call (setup and checks may); the reset tool is always hidden. */
  hiddenTools: string[];
  description?: string;
}

/** Default step limit of an MCP env. */
export const MCP_MAX_STEPS = 20;
/** Default time limit of one request to an MCP server. */
export const MCP_TIMEOUT_MS = 30_000;
/** Default time limit for an MCP server to start (an `npx` server may install itself first). */
export const MCP_START_TIMEOUT_MS = 60_000;

const FORMAT =
  'an MCP env config is a JSON object: {"name", "command" + "args" (stdio) or "url" (Streamable HTTP), "tasks": "FILE.jsonl"} with optional "reset" ("restart" | "none" | {"tool": …}), "maxSteps", "timeoutMs", "startTimeoutMs", "hiddenTools", "env", "cwd", "headers", "description"; see docs/mcp-env.md';

const stringMap = z.record(z.string(), z.string(), { error: 'expected an object of strings' });

const fileSchema = z
  .strictObject({
    name: z
      .string({ error: 'expected a string' })
      .regex(/^[A-Za-z0-9][\w.-]*$/, 'use letters, digits, _ . - (the env family is mcp:NAME)'),
    command: z.string({ error: 'expected the command, a string' }).min(1).optional(),
    args: z.array(z.string(), { error: 'expected a list of strings' }).optional(),
    env: stringMap.optional(),
    cwd: z.string({ error: 'expected a folder path' }).optional(),
    url: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL of the MCP endpoint' })
      .optional(),
    headers: stringMap.optional(),
    tasks: z.string({ error: 'expected the path of the task file (JSONL)' }).min(1),
    reset: z
      .union([z.enum(['restart', 'none']), toolCallSchema], {
        error: 'expected "restart", "none" or {"tool": "NAME", "arguments": {…}}',
      })
      .default('restart'),
    maxSteps: z.int({ error: 'expected a whole number' }).min(1).default(MCP_MAX_STEPS),
    timeoutMs: z.int({ error: 'expected a whole number of ms' }).min(1).default(MCP_TIMEOUT_MS),
    startTimeoutMs: z
      .int({ error: 'expected a whole number of ms' })
      .min(1)
      .default(MCP_START_TIMEOUT_MS),
    hiddenTools: z.array(z.string(), { error: 'expected a list of tool names' }).default([]),
    description: z.string().optional(),
  })
  .superRefine((config, context) => {
    const has = [config.command !== undefined, config.url !== undefined];
    if (has[0] === has[1]) {
      context.addIssue({
        code: 'custom',
        message:
          'give either "command" (and "args") for a stdio server or "url" for a Streamable HTTP one',
      });
    }
    const stdioOnly = (['args', 'env', 'cwd'] as const).filter((k) => config[k] !== undefined);
    if (config.url !== undefined && stdioOnly.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `${stdioOnly.join(', ')} apply to a stdio server ("command"), not to "url"`,
      });
    }
    if (config.command !== undefined && config.headers !== undefined) {
      context.addIssue({ code: 'custom', message: '"headers" apply to "url", not to "command"' });
    }
  });

/**
 * Checks a parsed config file (`file` names it in errors; relative `tasks` and `cwd` paths start
 * at its folder) and reads its task file. A wrong field is a {@link ConfigError} naming it and the
 * format; a bad task file a `DataFormatError` naming the line.
 */
export function parseMcpConfig(value: unknown, file: string): McpConfig {
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(`${file}: ${schemaProblem(parsed.error, 'the config')}; ${FORMAT}.`);
  }
  const c = parsed.data;
  const base = dirname(resolve(file));
  const server: McpServerSpec =
    c.url !== undefined
      ? { transport: 'http', url: c.url, ...(c.headers && { headers: c.headers }) }
      : {
          transport: 'stdio',
          command: c.command as string,
          args: c.args ?? [],
          ...(c.env && { env: c.env }),
          cwd: resolve(base, c.cwd ?? '.'),
        };
  const reset: McpResetMode =
    typeof c.reset === 'string' ? { kind: c.reset } : { kind: 'tool', ...c.reset };
  const tasksFile = resolve(base, c.tasks);
  return {
    name: c.name,
    server,
    tasksFile,
    tasks: loadMcpTasks(tasksFile),
    reset,
    maxSteps: c.maxSteps,
    timeoutMs: c.timeoutMs,
    startTimeoutMs: c.startTimeoutMs,
    hiddenTools: c.hiddenTools,
    ...(c.description !== undefined && { description: c.description }),
  };
}

/** Reads, checks and resolves an MCP env config file and its task file. */
export function loadMcpConfig(path: string): McpConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read the MCP env config ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); write mcp@PATH with PATH a JSON config file.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not JSON (${(error as Error).message}); ${FORMAT}.`);
  }
  return parseMcpConfig(value, path);
}
