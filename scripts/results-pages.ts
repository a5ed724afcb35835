/**
 * The benchmark results pages of the docs (docs/results/bench/*.md), generated from the committed
 * bench/results/*.json, so a figure on the site is the figure in the JSON. `npm run docs:results`
 * rewrites them; test/results-pages.test.ts fails when a committed page no longer matches.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One bench/results/NAME.json as `npm run bench` writes it. */
export interface BenchResult {
  name: string;
  date: string;
  machine: Record<string, unknown>;
  results: unknown;
  seed?: number;
  seeds?: number[];
  commit?: string;
}

const repo = resolve(import.meta.dirname, '..');
/** Where the JSON is read from and the pages are written to. */
export const BENCH_JSON_DIR = join(repo, 'bench/results');
export const BENCH_PAGES_DIR = join(repo, 'docs/results/bench');

function value(v: unknown): string {
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (typeof v === 'string') return v.replaceAll('|', '\\|').replaceAll('<', '&lt;');
  return JSON.stringify(v);
}

function rows(node: unknown, path: string[], out: string[]): void {
  if (node !== null && typeof node === 'object') {
    const entries = Array.isArray(node)
      ? node.map((v, i) => [`[${i}]`, v] as const)
      : Object.entries(node);
    for (const [key, child] of entries) rows(child, [...path, key], out);
    return;
  }
  out.push(`| \`${path.join('.')}\` | ${value(node)} |`);
}

/**
 * The page for one bench result: how it was produced (command, seeds, date, machine, commit), then
 * every figure. `stem` is its file's name without `.json`: `NAME`, or `NAME.TAG` for a part run
 * with `BENCH_TAG`.
 */
export function benchPage(result: BenchResult, stem = result.name): string {
  const tag = stem.startsWith(`${result.name}.`) ? stem.slice(result.name.length + 1) : undefined;
  const machine = Object.entries(result.machine)
    .map(([k, v]) => `${k} ${value(v)}`)
    .join(', ');
  const seeds =
    result.seeds?.join(', ') ??
    (result.seed === undefined ? 'not recorded in the JSON' : String(result.seed));
  const lines = [
    `# Benchmark: ${result.name}`,
    '',
    `Generated from \`bench/results/${stem}.json\` by \`npm run docs:results\`; do not edit by hand.`,
    '',
    '| produced by | |',
    '|---|---|',
    `| command | \`${tag ? `BENCH_TAG=${tag} ` : ''}npm run bench -- ${result.name}\` |`,
    `| seeds | ${seeds} |`,
    `| date | ${result.date} |`,
    `| machine | ${machine} |`,
    `| commit | ${result.commit ?? 'not recorded in the JSON'} |`,
    '',
    '| figure | value |',
    '|---|---|',
  ];
  rows(result.results, [], lines);
  return `${lines.join('\n')}\n`;
}

/** The index page listing every bench page, each with its file's stem (see {@link benchPage}). */
export function benchIndex(results: ReadonlyArray<{ stem: string; result: BenchResult }>): string {
  const lines = [
    '# Benchmark results',
    '',
    'Every figure `npm run bench` last committed, one page a bench, generated from `bench/results/*.json` by `npm run docs:results`. The summary with context is in [results/benchmarks](../benchmarks.md).',
    '',
    '| bench | date |',
    '|---|---|',
    ...results.map(({ stem, result }) => `| [${stem}](./${stem}.md) | ${result.date} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Every page, by file name, from the committed JSON. */
export function benchPages(): Map<string, string> {
  const files = readdirSync(BENCH_JSON_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const results = files.map(
    (f) => JSON.parse(readFileSync(join(BENCH_JSON_DIR, f), 'utf8')) as BenchResult,
  );
  const stems = results.map((result, i) => ({
    stem: basename(files[i] as string, '.json'),
    result,
  }));
  const pages = new Map<string, string>();
  for (const { stem, result } of stems) pages.set(`${stem}.md`, benchPage(result, stem));
  pages.set('index.md', benchIndex(stems));
  return pages;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  mkdirSync(BENCH_PAGES_DIR, { recursive: true });
  for (const [file, text] of benchPages()) writeFileSync(join(BENCH_PAGES_DIR, file), text);
  console.log(`wrote ${BENCH_PAGES_DIR}`);
}
