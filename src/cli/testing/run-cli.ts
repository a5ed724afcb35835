import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const bin = join(import.meta.dirname, '../../../scripts/dreamgym-dev.js');

/**
 * Runs the `dreamgym` CLI in a child process, asynchronously, so that fake servers living in the
 * test's own process keep serving while it runs; `env` adds to the child's environment. For tests
 * only.
 */
export async function runCli(
  args: string[],
  timeout = 60_000,
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      timeout,
      ...(env && { env: { ...process.env, ...env } }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}
