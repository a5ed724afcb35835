import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runWebDemo, type WebDemoOptions, type WebDemoResult } from './web-demo.ts';
import { writeWebDemoReport } from './web-demo-report.ts';

/** The web table on several seeds: one {@link WebDemoResult} a seed, in seed order. */
export interface WebSeedsResult {
  seeds: number[];
  runs: WebDemoResult[];
}

/**
 * Runs the web table on `seeds` seeds (`options.seed`, `options.seed + 1`, …) one after another,
 * each into `outDir/seed-<n>` with its own report and buffers; writes the runs together to
 * `outDir/results.json` (`writeWebSeedsReport` writes the report across seeds). Each seed collects
 * its own offline demonstrations and trains every row from them, so seeds differ in their data as
 * well as in training, as the webshop table's do.
 */
export async function runWebDemoSeeds(
  options: WebDemoOptions,
  seeds: number,
): Promise<WebSeedsResult> {
  const log = options.onProgress ?? (() => {});
  await mkdir(options.outDir, { recursive: true });
  const result: WebSeedsResult = { seeds: [], runs: [] };
  for (let i = 0; i < seeds; i++) {
    const seed = options.seed + i;
    log(`seed ${seed} (${i + 1} of ${seeds})`);
    const outDir = join(options.outDir, `seed-${seed}`);
    const run = await runWebDemo({
      ...options,
      seed,
      outDir,
      onProgress: (line) => log(`seed ${seed}: ${line}`),
    });
    await writeWebDemoReport(run, outDir);
    result.seeds.push(seed);
    result.runs.push(run);
    // Written after every seed, so an interrupted run keeps the seeds it finished.
    await writeFile(join(options.outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
  }
  return result;
}
