import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repo's Python venv, made by `npm run setup` from python/requirements-test.txt. */
export const VENV_DIR = resolve(import.meta.dirname, '../../../.venv');

/**
 * The venv's Python executable, for tests that run Python (the OpenEnv-protocol server, the client
 * package). A missing venv is an error naming the fix, never a skip.
 */
export function venvPython(): string {
  const python = join(VENV_DIR, 'bin', 'python');
  if (!existsSync(python)) {
    throw new Error(
      `the Python venv is missing (${python}): run npm run setup, which makes .venv/ from python/requirements-test.txt.`,
    );
  }
  return python;
}
