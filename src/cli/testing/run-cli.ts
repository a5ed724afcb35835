import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHILD_TIMEOUT_MS } from './timeouts.ts';

/** What a run of the CLI gave: its exit code and everything it printed. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `dreamgym` command run from the sources through tsx: what tests spawn. */
export const devBin = join(import.meta.dirname, '../../../scripts/dreamgym-dev.js');

/** How {@link runCli} starts the child. */
export interface ChildOptions {
  /** Added to the child's environment. */
  env?: NodeJS.ProcessEnv;
  /** The child's working directory. */
  cwd?: string;
  /** Node options before the script, e.g. `['--import', hook]`. */
  nodeOptions?: readonly string[];
  /** Killed after this long; {@link CHILD_TIMEOUT_MS} unless set. */
  timeout?: number;
}

/**
 * Runs the `dreamgym` CLI in a child process, asynchronously, so that fake servers living in the
 * test's own process keep serving while it runs. For tests about the process (exit of a real
 * process, module loading, pipes); tests about behaviour use {@link runCliInProcess}, which gives
 * the same result without a process's start-up.
 */
export async function runCli(args: readonly string[], options: ChildOptions = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [...(options.nodeOptions ?? []), devBin, ...args],
      {
        timeout: options.timeout ?? CHILD_TIMEOUT_MS,
        ...(options.env && { env: { ...process.env, ...options.env } }),
        ...(options.cwd && { cwd: options.cwd }),
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as CliRun;
    return { code, stdout, stderr };
  }
}
