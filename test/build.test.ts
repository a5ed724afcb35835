/**
 * `npm run build` while a process reads dist/: `npm pack` (through `prepare`) rebuilds the package
 * while a `dreamgym` command runs from the same checkout. The build script of package.json runs on
 * a tiny project of its own (a tsconfig.build.json and two sources), with a poller process beside
 * it that reads dist/ without pause.
 */
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');
const buildScript = (
  JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    scripts: { build: string };
  }
).scripts.build;

/** A project whose build is package.json's: its scripts/ are the repo's, and dist/ holds an old build. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dg-build-'));
  symlinkSync(join(repo, 'scripts'), join(dir, 'scripts'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  writeFileSync(
    join(dir, 'tsconfig.build.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        rootDir: 'src',
        outDir: 'dist',
        sourceMap: true,
        types: [],
      },
      files: ['src/index.ts', 'src/sub/part.ts'],
    }),
  );
  mkdirSync(join(dir, 'src', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'src', 'sub', 'part.ts'), 'export const part: string = "new";\n');
  writeFileSync(
    join(dir, 'src', 'index.ts'),
    'export { part } from "./sub/part.js";\nexport const built: string = "new";\n',
  );
  mkdirSync(join(dir, 'dist', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'index.js'), 'export const built = "old";\n');
  writeFileSync(join(dir, 'dist', 'sub', 'part.js'), 'export const part = "old";\n');
  writeFileSync(join(dir, 'dist', 'stale.js'), 'export const removed = true;\n');
  return dir;
}

/**
 * Reads dist/index.js and dist/sub/part.js without pause until `stop` appears; prints how many
 * reads it made and how many found a file missing or incomplete.
 */
const POLLER = `
  const { existsSync, readFileSync } = require('node:fs');
  let reads = 0, misses = 0;
  while (!existsSync('stop')) {
    for (const file of ['dist/index.js', 'dist/sub/part.js']) {
      reads++;
      try { if (!/export /.test(readFileSync(file, 'utf8'))) misses++; } catch { misses++; }
    }
  }
  console.log(JSON.stringify({ reads, misses }));
`;

function runBuild(dir: string) {
  return promisify(execFile)('sh', ['-c', buildScript], {
    cwd: dir,
    env: {
      ...process.env,
      PATH: `${join(repo, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
    },
  });
}

describe('npm run build', () => {
  it('never leaves dist/ missing or half-written for a process reading it, and ends as a fresh build', async () => {
    const dir = project();
    const poller = spawn(process.execPath, ['-e', POLLER], { cwd: dir });
    let output = '';
    poller.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise((done) => poller.on('exit', done));
    try {
      await runBuild(dir);
      await runBuild(dir);
    } finally {
      writeFileSync(join(dir, 'stop'), '');
      await exited;
    }
    const { reads, misses } = JSON.parse(output) as { reads: number; misses: number };
    expect(reads).toBeGreaterThan(1000);
    expect(misses).toBe(0);
    // As `rm -rf dist && tsc` left it: the new build only, and nothing beside dist/.
    expect(readdirSync(join(dir, 'dist')).sort()).toEqual(['index.js', 'index.js.map', 'sub']);
    expect(readFileSync(join(dir, 'dist', 'sub', 'part.js'), 'utf8')).toContain('"new"');
    expect(readdirSync(dir).sort()).toEqual([
      'dist',
      'package.json',
      'scripts',
      'src',
      'stop',
      'tsconfig.build.json',
    ]);
  }, 120_000);

  it('keeps the old dist/ when the compiler fails, and says so', async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'src', 'sub', 'part.ts'),
      'export const part: number = "not a number";\n',
    );
    const error = (await runBuild(dir).catch((e: unknown) => e)) as { stderr: string };
    expect(error.stderr).toMatch(/dist\/? is left as it was/);
    expect(readFileSync(join(dir, 'dist', 'index.js'), 'utf8')).toContain('"old"');
    expect(existsSync(join(dir, 'dist', 'stale.js'))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([
      'dist',
      'package.json',
      'scripts',
      'src',
      'tsconfig.build.json',
    ]);
  }, 60_000);
});
