/**
 * `npm run bench [-- NAME…]`: runs bench/*.bench.ts (or the named ones) one after another and
 * writes bench/results/<name>.json with the figures, the machine and the date;
 * bench/results/<name>.<tag>.json with BENCH_TAG=<tag> (parts of one benchmark run side by side).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineInfo } from './measure.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(basename(f, '.bench.ts')))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}; see bench/*.bench.ts`);
  process.exit(1);
}
await mkdir(join(here, 'results'), { recursive: true });
for (const file of files) {
  const name = basename(file, '.bench.ts');
  console.log(`\n== ${name}`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as {
    default: () => Promise<unknown>;
  };
  const results = await mod.default();
  const tag = process.env.BENCH_TAG;
  const out = join(here, 'results', tag ? `${name}.${tag}.json` : `${name}.json`);
  const report = { name, date: new Date().toISOString(), machine: machineInfo(), results };
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${out}`);
}
