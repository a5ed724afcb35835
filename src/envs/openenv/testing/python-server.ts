import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { venvPython } from '../../../core/testing/python.ts';

/** The number-guessing OpenEnv-protocol server of `openenv_server.py`, running. */
export interface PythonOpenEnvServer {
  /** Root URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  process: ChildProcess;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Where the server script is. */
export const OPENENV_SERVER_SCRIPT = join(import.meta.dirname, 'openenv_server.py');

/**
 * Starts `openenv_server.py` with the repo venv's Python on a free loopback port and waits until
 * it accepts connections (it prints `{"listening": PORT}`). A missing venv fails naming
 * `npm run setup`; a server that dies or stays silent for 30 s fails with its stderr.
 */
export async function startPythonOpenEnvServer(
  options: { maxSessions?: number } = {},
): Promise<PythonOpenEnvServer> {
  const child = spawn(
    venvPython(),
    [OPENENV_SERVER_SCRIPT, '--port', '0', '--max-sessions', String(options.maxSessions ?? 1)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`openenv_server.py did not start within 30 s; stderr:\n${stderr}`));
    }, 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /\{"listening": (\d+)\}/.exec(stdout);
      if (line) {
        clearTimeout(timer);
        resolve(Number(line[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`openenv_server.py exited (code ${code}) before listening; stderr:\n${stderr}`),
      );
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
