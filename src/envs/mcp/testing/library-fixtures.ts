/**
 * Fixtures of the MCP env tests: the library server's files, env configs for it over stdio and
 * over Streamable HTTP, the server as an HTTP child process, and the actions that solve each
 * task of `library-tasks.jsonl`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { McpConfig } from '../config.ts';
import { parseMcpConfig } from '../config.ts';

const here = import.meta.dirname;

/** The library server script (run with `node --import tsx`). */
export const LIBRARY_SERVER = join(here, 'library-server.ts');
/** The library's task file: six tasks, one success check of each kind. */
export const LIBRARY_TASKS = join(here, 'library-tasks.jsonl');
/** An `mcp@` config of the library over stdio, as a user would write it. */
export const LIBRARY_STDIO_CONFIG = join(here, 'library-stdio.json');

/** Writes a config file into a fresh temporary folder and returns its path. */
export function writeConfig(config: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-mcp-')), 'config.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/**
 * The library over stdio, reset by its reset tool (one process per env: quicker than a restart
 * per reset, which `reset: 'restart'` gives); `serverArgs` are added to its command line
 * (e.g. `--crash-on lend_book`), `extra` overrides config fields.
 */
export function stdioConfig(
  extra: Record<string, unknown> = {},
  serverArgs: string[] = [],
): McpConfig {
  const file = {
    name: 'library',
    command: process.execPath,
    args: ['--import', 'tsx', LIBRARY_SERVER, '--stdio', ...serverArgs],
    tasks: LIBRARY_TASKS,
    reset: { tool: 'reset_library' },
    hiddenTools: ['add_book'],
    maxSteps: 12,
    ...extra,
  };
  return parseMcpConfig(file, join(here, 'inline-stdio.json'));
}

/** The library at `url`, reset by its reset tool; `extra` overrides fields. */
export function httpConfig(url: string, extra: Record<string, unknown> = {}): McpConfig {
  const file = {
    name: 'library',
    url,
    tasks: LIBRARY_TASKS,
    reset: { tool: 'reset_library' },
    hiddenTools: ['add_book'],
    maxSteps: 12,
    ...extra,
  };
  return parseMcpConfig(file, join(here, 'inline-http.json'));
}

/** The library server as a Streamable HTTP child process on 127.0.0.1. */
export interface LibraryHttpServer {
  url: string;
  process: ChildProcess;
  /** Stops the process (if it still runs) and waits for it to exit. */
  close(): Promise<void>;
}

/** Starts the library server over HTTP (extra args e.g. `--crash-on lend_book`). */
export async function startLibraryHttpServer(args: string[] = []): Promise<LibraryHttpServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', LIBRARY_SERVER, '--http', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const timer = setTimeout(
      () => reject(new Error(`no LISTENING line in 30 s: ${stderr}`)),
      30_000,
    );
    lines.on('line', (line) => {
      const match = /^LISTENING (\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the library server exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url,
    process: child,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The actions that solve each task of `library-tasks.jsonl`, by task file id. */
export const LIBRARY_SOLUTIONS: Record<string, string[]> = {
  'dune-copies': ['search_catalog({"query": "dune"})', 'answer[2]'],
  'lend-beloved': ['lend_book({"book_id": "b3", "member": "ada"})', 'answer[done]'],
  'who-has-emma': ['list_loans()', 'answer[grace]'],
  'lend-kindred': [
    'search_catalog({"query": "kindred"})',
    'lend_book({"book_id": "b6", "member": "linus"})',
    'answer[done]',
  ],
  'middlemarch-author': ['search_catalog({"query": "middlemarch"})', 'answer[George Eliot]'],
  'return-emma': ['return_book({"book_id": "b2", "member": "grace"})', 'answer[done]'],
};

/** The file id of an MCP task id (`mcp:library/dune-copies` → `dune-copies`). */
export function taskFileId(taskId: string): string {
  return taskId.slice(taskId.indexOf('/') + 1);
}
