import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isToolName } from './action-syntax.ts';
import type { McpConfig } from './config.ts';
import { McpConnection } from './connection.ts';
import { toolSignature } from './tool-listing.ts';

/**
 * The server's tools the agent may call: all but the config's hidden ones, the reset tool, and
 * names our action syntax cannot write: what `McpEnv` offers, and what an LLM is told.
 */
export function agentTools(tools: readonly Tool[], config: McpConfig): Tool[] {
  const hidden = new Set([
    ...config.hiddenTools,
    ...(config.reset.kind === 'tool' ? [config.reset.tool] : []),
  ]);
  return tools.filter((tool) => !hidden.has(tool.name) && isToolName(tool.name));
}

/**
 * The signatures of the agent's tools on the server (`lend_book(book_id: string, member:
 * string): Lends a copy …`), read from a connection opened for it and closed again: how the
 * LLM experience model learns an MCP env's tools without playing it.
 */
export async function agentToolSignatures(config: McpConfig): Promise<string[]> {
  const connection = await McpConnection.open(`mcp:${config.name}`, config.server, {
    startMs: config.startTimeoutMs,
    callMs: config.timeoutMs,
  });
  try {
    return agentTools(connection.tools, config).map(toolSignature);
  } finally {
    await connection.close();
  }
}
