import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import type { PoolIterationStats } from '../curriculum/task-pool.ts';
import type { DemoResult } from '../pipeline/demo.ts';
import { type IterationRow, MetricsFile } from './metrics-file.ts';

/** Training stages whose metrics a run folder may hold, in the order they run. */
export const STAGES = ['synthetic', 's2r'] as const;

/** What a run folder holds that the dashboard shows; each part absent until the run writes it. */
export interface RunFolder {
  dir: string;
  config?: unknown;
  versions?: Record<string, string>;
  summary?: unknown;
  /** Per-iteration metrics of each stage that has any (`synthetic/metrics.jsonl`, `s2r/…`). */
  metrics: Partial<Record<(typeof STAGES)[number], readonly IterationRow[]>>;
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
 * Reads what a run folder holds now (see {@link RunFolderReader}); a dashboard that reads it
 * again keeps a reader instead.
 */
export function readRunFolder(dir: string): RunFolder {
  return new RunFolderReader(dir).read();
}

/**
 * A run folder read again and again, as a dashboard that follows the run does. Tolerates a run in
 * progress: missing files are left out, a metrics line still being written waits for its line
 * end, and unreadable files and lines are listed in `problems`. The stages' metrics files, which
 * grow to hundreds of MB on long runs, are followed ({@link MetricsFile}): each read parses only
 * what was appended since the last.
 */
export class RunFolderReader {
  private readonly metricsFiles: ReadonlyArray<readonly [(typeof STAGES)[number], MetricsFile]>;

  constructor(readonly dir: string) {
    this.metricsFiles = STAGES.map(
      (stage) =>
        [
          stage,
          new MetricsFile(join(dir, stage, 'metrics.jsonl'), `${stage}/metrics.jsonl`),
        ] as const,
    );
  }

  /** What the folder holds now. */
  read(): RunFolder {
    const folder = readSmallFiles(this.dir);
    for (const [stage, file] of this.metricsFiles) {
      const snapshot = file.read();
      if (!snapshot) continue;
      folder.metrics[stage] = snapshot.rows;
      folder.problems.push(...snapshot.problems);
    }
    return folder;
  }
}

/** Everything but the metrics: a few small JSON files, and the curriculum's task pool. */
function readSmallFiles(dir: string): RunFolder {
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
