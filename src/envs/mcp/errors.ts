import { DreamGymError } from '../../core/errors.ts';

/**
 * The MCP server could not be reached or stopped answering: it would not start, its process
 * exited, its HTTP endpoint failed, or a request timed out. Names the server and the request,
 * quotes the end of the server's stderr where there is one, and says what to do. The episode it
 * happened in is over: the server may or may not have done the call, so `reset()` starts afresh.
 */
export class McpServerError extends DreamGymError {
  override name = 'McpServerError';
  constructor(
    /** The server, e.g. `mcp:library (node server.js)` or `mcp:library at http://…/mcp`. */
    readonly server: string,
    /** The request, e.g. `tools/call lend_book`. */
    readonly request: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${server}: ${request} failed: ${problem}. ${fix}`);
  }
}
