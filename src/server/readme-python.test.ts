/**
 * The README's Python example (its section on serving envs), run as written against a served
 * webshop, with the served URL in place of the README's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { venvPython } from '../core/testing/python.ts';
import { serveEnv } from './serve-env.ts';

const README_URL = 'http://127.0.0.1:36001';

/** The README's ```python block that uses dreamgym_client. */
function readmeSnippet(): string {
  const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const snippet = blocks.find((b) => b.includes('from dreamgym_client import'));
  if (!snippet) throw new Error('README.md has no ```python block using dreamgym_client any more.');
  return snippet;
}

it("the README's dreamgym-client example runs against a served env", async () => {
  const python = venvPython();
  const snippet = readmeSnippet();
  expect(snippet).toContain(README_URL);
  const served = await serveEnv({ env: 'webshop', port: 0 });
  try {
    const { stdout } = await promisify(execFile)(
      python,
      ['-c', snippet.replaceAll(README_URL, served.url)],
      { timeout: 60_000 },
    ).catch((error: { stderr?: string; message: string }) => {
      throw new Error(
        `the README's example failed (dreamgym_client missing? run npm run setup):\n${error.stderr ?? error.message}`,
      );
    });
    expect(stdout.trim()).toMatch(
      /^\('click\[Back to Search\]', 'click\[Next >\]', 'click\[B0\w+\]'\) 0\.0 False False$/,
    );
  } finally {
    await served.close();
  }
}, 90_000);
