/**
 * What `npm pack` puts in the package (package.json's "files"): the compiled code with its types
 * and the pages a user reads, never the docs site's build config or other TypeScript sources.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');

describe('the npm package', () => {
  it('ships dist/, bin/, the README and the docs pages, and no TypeScript source', async () => {
    // --ignore-scripts: the list of files, without the build `prepare` would run first.
    const { stdout } = await promisify(execFile)(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts'],
      { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
    );
    const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    const files = (pack?.files ?? []).map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'bin/dreamgym.js',
        'dist/index.js',
        'dist/index.d.ts',
        'docs/environments.md',
      ]),
    );
    expect(files.filter((f) => f.startsWith('docs/.vitepress/'))).toEqual([]);
    expect(
      files.filter((f) => /\.[cm]?tsx?$/.test(f) && !/^dist\/.*\.d\.[cm]?ts$/.test(f)),
    ).toEqual([]);
  }, 60_000);
});
