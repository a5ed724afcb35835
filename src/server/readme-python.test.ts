/**
 * The Python example of the serving guide (docs/guide/serving.md), run as written against a
 * served webshop, with the served URL in place of the guide's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { venvPython } from '../core/testing/python.ts';
import { serveEnv } from './serve-env.ts';

const GUIDE_URL = 'http://127.0.0.1:36001';

/** The serving guide's ```python block that uses dreamgym_client. */
function guideSnippet(): string {
  const guide = readFileSync(resolve(import.meta.dirname, '../../docs/guide/serving.md'), 'utf8');
  const blocks = [...guide.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const snippet = blocks.find((b) => b.includes('from dreamgym_client import'));
  if (!snippet)
    throw new Error('docs/guide/serving.md has no ```python block using dreamgym_client any more.');
  return snippet;
}

it("the serving guide's dreamgym-client example runs against a served env", async () => {
  const python = venvPython();
  const snippet = guideSnippet();
  expect(snippet).toContain(GUIDE_URL);
  const served = await serveEnv({ env: 'webshop', port: 0 });
  try {
    const { stdout } = await promisify(execFile)(
      python,
      ['-c', snippet.replaceAll(GUIDE_URL, served.url)],
      { timeout: 60_000 },
    ).catch((error: { stderr?: string; message: string }) => {
      throw new Error(
        `the serving guide's example failed (dreamgym_client missing? run npm run setup):\n${error.stderr ?? error.message}`,
      );
    });
    expect(stdout.trim()).toMatch(
      /^\('click\[Back to Search\]', 'click\[Next >\]', 'click\[B0\w+\]'\) 0\.0 False False$/,
    );
  } finally {
    await served.close();
  }
}, 90_000);
