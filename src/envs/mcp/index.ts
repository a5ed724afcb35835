import { resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import type { EnvEntry, EnvOptions } from '../env.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { agentToolSignatures } from './agent-tools.ts';
import { loadMcpConfig, type McpConfig } from './config.ts';
import { McpEnv } from './mcp-env.ts';
import { McpTaskSource } from './tasks.ts';

export {
  ANSWER_TEMPLATE,
  formatAnswer,
  formatToolCall,
  type MalformedAction,
  type McpAction,
  parseMcpAction,
  type ToolCall,
} from './action-syntax.ts';
export { agentToolSignatures, agentTools } from './agent-tools.ts';
export { matchesText, type SuccessCheck, type TextMatch } from './check.ts';
export {
  loadMcpConfig,
  MCP_MAX_STEPS,
  MCP_START_TIMEOUT_MS,
  MCP_TIMEOUT_MS,
  type McpConfig,
  type McpResetMode,
  type McpServerSpec,
  parseMcpConfig,
} from './config.ts';
export { McpServerError } from './errors.ts';
export { McpEnv, type McpEnvOptions } from './mcp-env.ts';
export {
  loadMcpTasks,
  type McpTaskDefinition,
  McpTaskSource,
  type McpTaskSpec,
  mcpTask,
  parseMcpTasks,
} from './tasks.ts';
export { toolSignature, toolTemplate } from './tool-listing.ts';

/** Prefix of env names that run an MCP tool server: `mcp@CONFIG.json`. */
export const MCP_PREFIX = 'mcp@';

const USAGE =
  'write mcp@PATH, PATH a JSON config naming the server ("command" + "args", or "url") and the task file (see docs/mcp-env.md)';

/** True for names of the form `mcp@…`. */
export function isMcpRef(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}

/** The absolute config path of `mcp@PATH` (relative paths start at `cwd`). */
export function parseMcpRef(ref: string, cwd = process.cwd()): string {
  const path = isMcpRef(ref) ? ref.slice(MCP_PREFIX.length).trim() : '';
  if (!path) throw new ConfigError(`"${ref}" names no MCP env config; ${USAGE}.`);
  return resolve(cwd, path);
}

/** The registry entry of an MCP env config already loaded (see {@link mcpEntry}). */
export function mcpConfigEntry(config: McpConfig): EnvEntry {
  const family = `mcp:${config.name}`;
  const source = new McpTaskSource(family, config.tasks, config.tasksFile);
  const where =
    config.server.transport === 'http'
      ? config.server.url
      : [config.server.command, ...config.server.args].join(' ');
  return {
    name: family,
    description:
      config.description ??
      `MCP tool server ${config.name} (${where}): tool calls name({json}) and answer[text]; ${config.tasks.length} tasks from ${config.tasksFile}`,
    remote: true,
    maxSteps: config.maxSteps,
    make: (o: EnvOptions) =>
      new TimeLimit(
        new ObservationLimit(
          new McpEnv({ config, ...(o.split !== undefined && { split: o.split }) }),
          o.maxObservationChars,
        ),
        o.maxSteps ?? config.maxSteps,
      ),
    tasks: () => source,
    tools: () => agentToolSignatures(config),
  };
}

/**
 * The registry entry of `mcp@CONFIG.json`: an MCP tool server (stdio or Streamable HTTP) as an
 * env of family `mcp:NAME`, inside the config's step limit (or `options.maxSteps`) and the
 * observation limit (`options.maxObservationChars`, default 20,000 characters), its tasks
 * from the config's task file. The config and task file are read and checked now; nothing is
 * started or contacted before the first `reset`. Marked `remote`: there is no scripted expert.
 */
export function mcpEntry(ref: string): EnvEntry {
  return mcpConfigEntry(loadMcpConfig(parseMcpRef(ref)));
}
