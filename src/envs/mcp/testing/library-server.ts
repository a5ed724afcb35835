/**
 * Runs the library MCP server (see `library.ts`) as a process:
 *
 *   node --import tsx library-server.ts --stdio [--crash-on TOOL] [--hang-on TOOL] [--bulky]
 *   node --import tsx library-server.ts --http [--port N] [--crash-on TOOL] [--hang-on TOOL] [--bulky]
 *
 * Over stdio it speaks on stdin/stdout and exits when stdin closes. Over Streamable HTTP it
 * listens on 127.0.0.1 (port 0: a free one), gives each MCP session its own library, and prints
 * `LISTENING <url>` on stdout once ready. `--crash-on TOOL` makes it exit mid-call of TOOL,
 * `--hang-on TOOL` never answer calls of TOOL, `--bulky` adds `print_report({ chars })`, a result of
 * that many characters.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createLibraryServer } from './library.ts';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    'crash-on': { type: 'string' },
    'hang-on': { type: 'string' },
    bulky: { type: 'boolean', default: false },
  },
});
const options = {
  ...(values['crash-on'] && { crashOn: values['crash-on'] }),
  ...(values['hang-on'] && { hangOn: values['hang-on'] }),
  bulky: values.bulky,
};

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  return body ? JSON.parse(body) : undefined;
}

async function serveStdio(): Promise<void> {
  process.stdin.on('close', () => process.exit(0));
  await createLibraryServer(options).connect(new StdioServerTransport());
}

async function serveHttp(port: number): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (request, response) => {
    const fail = (status: number, message: string) =>
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
    try {
      if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
        return fail(404, 'Not found: the MCP endpoint is /mcp');
      }
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      const id = request.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known) return await known.handleRequest(request, response, body);
      if (id !== undefined) return fail(404, 'Session not found');
      if (request.method !== 'POST' || !isInitializeRequest(body)) {
        return fail(400, 'Bad Request: no session; initialize first');
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => {
          sessions.set(session, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await createLibraryServer(options).connect(transport);
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) fail(500, (error as Error).message);
    }
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const { port: bound } = http.address() as AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${bound}/mcp\n`);
  const stop = () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (values.stdio === values.http) {
  process.stderr.write('library server: pass --stdio or --http\n');
  process.exit(2);
}
if (values.stdio) await serveStdio();
else await serveHttp(Number(values.port));
