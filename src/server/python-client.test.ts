/**
 * The Python package `dreamgym-client` (python/) and its trainer adapters, tested with pytest
 * against a served `webshop`: python/tests/test_client.py and test_adapters.py.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { venvPython } from '../core/testing/python.ts';
import { serveEnv } from './serve-env.ts';

const root = resolve(import.meta.dirname, '../..');

describe('the Python client package', () => {
  it('passes its pytest suite against a served webshop (client and TRL, verl, SkyRL, ART adapters)', async () => {
    const python = venvPython();
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-python-client-'));
    const served = await serveEnv({
      env: 'webshop',
      port: 0,
      maxSteps: 5,
      curriculum: { mode: 'random', tasksPath: join(dir, 'tasks.db'), groupSize: 2, batchTasks: 2 },
    });
    try {
      const run = await promisify(execFile)(
        python,
        [
          '-m',
          'pytest',
          '-q',
          '-p',
          'no:cacheprovider',
          'python/tests/test_client.py',
          'python/tests/test_adapters.py',
        ],
        { cwd: root, env: { ...process.env, DREAMGYM_URL: served.url }, timeout: 170_000 },
      ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(
          `pytest failed (a module missing? run npm run setup):\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`,
        );
      });
      expect(run.stdout).toMatch(/\b2\d passed\b/);
      expect(run.stdout).not.toMatch(/failed|error/);
    } finally {
      await served.close();
    }
  }, 180_000);
});
