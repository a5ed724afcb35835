import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import type { PoolIterationStats } from '../curriculum/task-pool.ts';
import type { DemoResult } from '../pipeline/demo.ts';
import type { IterationMetrics } from '../rl/trainer.ts';

/** Training stages whose metrics a run folder may hold, in the order they run. */
export const STAGES = ['synthetic', 's2r'] as const;

/** What a run folder holds that the dashboard shows; each part absent until the run writes it. */
export interface RunFolder {
  dir: string;
  config?: unknown;
  versions?: Record<string, string>;
  summary?: unknown;
  /** Per-iteration metrics of each stage that has any (`synthetic/metrics.jsonl`, `s2r/…`). */
  metrics: Partial<Record<(typeof STAGES)[number], IterationMetrics[]>>;
  /**
   * The curriculum's statistics per iteration: `curriculum.json` once the run wrote it, read
   * from its task pool (`tasks.db`) while it runs.
   */
  curriculum?: PoolIterationStats[];
  /** A demo run's table (`results.json`). */
  demo?: DemoResult;
  /** Files that could not be read as what they should be, with why. */
  problems: string[];
}

/** The files a run writes as it goes, watched for live updates. */
const WATCHED = [
  'config.json',
  'versions.json',
  'summary.json',
  'curriculum.json',
  'tasks.db',
  'tasks.db-wal',
  'results.json',
  ...STAGES.map((s) => join(s, 'metrics.jsonl')),
];

/**
 * Reads what a run folder holds now. Tolerates a run in progress: missing files are left out,
 * a metrics line still being written is skipped, and unreadable files are listed in `problems`.
 */
export function readRunFolder(dir: string): RunFolder {
  const folder: RunFolder = { dir, metrics: {}, problems: [] };
  const json = (name: string): unknown => {
    const path = join(dir, name);
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      folder.problems.push(`${name}: ${(error as Error).message}`);
      return undefined;
    }
  };
  folder.config = json('config.json');
  folder.versions = json('versions.json') as Record<string, string> | undefined;
  folder.summary = json('summary.json');
  const curriculum = json('curriculum.json') as { stats?: PoolIterationStats[] } | undefined;
  if (curriculum?.stats) folder.curriculum = curriculum.stats;
  else if (existsSync(join(dir, 'tasks.db'))) {
    try {
      folder.curriculum = SqliteTaskPool.readIterationStats(join(dir, 'tasks.db'));
    } catch (error) {
      folder.problems.push(`tasks.db: ${(error as Error).message}`);
    }
  }
  const demo = json('results.json') as DemoResult | undefined;
  if (demo && Array.isArray(demo.rows)) folder.demo = demo;
  for (const stage of STAGES) {
    const path = join(dir, stage, 'metrics.jsonl');
    if (!existsSync(path)) continue;
    const rows: IterationMetrics[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        rows.push(JSON.parse(line) as IterationMetrics);
      } catch {
        // The line the trainer is appending right now; the next read has it whole.
      }
    }
    folder.metrics[stage] = rows;
  }
  return folder;
}

/**
 * A fingerprint of the run's files (sizes and modification times): it changes when the run
 * writes any of them, which is when a dashboard should update.
 */
export function runFolderStamp(dir: string): string {
  return WATCHED.map((name) => {
    const path = join(dir, name);
    if (!existsSync(path)) return '-';
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  }).join('|');
}
