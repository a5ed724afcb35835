/**
 * `npm run build`: compiles tsconfig.build.json into a fresh folder beside its outDir (dist/), then
 * moves the new files into dist/ one rename at a time and removes what the new build no longer
 * has. A `dreamgym` command running from this checkout meanwhile (`npm pack` builds through
 * `prepare`) finds every file it reads, old or new, never a missing or half-written one: `rm -rf
 * dist && tsc` left it without dist/ for the whole compile. A compile that fails leaves dist/ as it
 * was. The fresh folder sits at dist/'s depth, so the source maps' relative paths hold after the move.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const CONFIG = 'tsconfig.build.json';

/** The outDir `config` compiles into, as tsc reads it (extends included). */
function outDirOf(config: string): string {
  const { config: json, error } = ts.readConfigFile(config, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options } = ts.parseJsonConfigFileContent(json, ts.sys, dirname(resolve(config)));
  if (!options.outDir) throw new Error(`${config} names no outDir; the build has nowhere to go.`);
  return options.outDir;
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) =>
    statSync(join(dir, path)).isFile(),
  );
}

/**
 * Moves the files of `fresh` into `outDir` (each rename replaces one file at once), then removes
 * the files and folders of `outDir` that `fresh` did not have, then `fresh`.
 */
function swapIn(fresh: string, outDir: string): void {
  if (!existsSync(outDir)) {
    renameSync(fresh, outDir);
    return;
  }
  const built = new Set(filesUnder(fresh));
  for (const path of built) {
    const target = join(outDir, path);
    if (statSync(target, { throwIfNoEntry: false })?.isDirectory())
      rmSync(target, { recursive: true });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(join(fresh, path), target);
  }
  for (const path of filesUnder(outDir)) if (!built.has(path)) unlinkSync(join(outDir, path));
  const folders = readdirSync(outDir, { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(join(outDir, path)).isDirectory())
    .sort((a, b) => b.length - a.length);
  for (const folder of folders) {
    if (readdirSync(join(outDir, folder)).length === 0) rmdirSync(join(outDir, folder));
  }
  rmSync(fresh, { recursive: true });
}

function build(config: string): number {
  const outDir = outDirOf(config);
  const fresh = join(dirname(outDir), `.${basename(outDir)}-build-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', config, '--outDir', fresh], {
    stdio: 'inherit',
  });
  if (compiled.status !== 0) {
    rmSync(fresh, { recursive: true, force: true });
    console.error(
      `build: tsc failed (${compiled.error?.message ?? `exit ${compiled.status ?? compiled.signal}`}); ${relative(process.cwd(), outDir)}/ is left as it was.`,
    );
    return compiled.status || 1;
  }
  swapIn(fresh, outDir);
  return 0;
}

process.exitCode = build(process.argv[2] ?? CONFIG);
