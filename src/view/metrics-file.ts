import { closeSync, openSync, readSync, type Stats, statSync } from 'node:fs';

/** What the dashboard shows of one iteration: a line of a stage's `metrics.jsonl`, trimmed. */
export interface IterationRow {
  iteration: number;
  /** Interactions with the training env so far. */
  envSteps: number;
  rollout: { successRate: number; meanReward: number; informativeGroups?: number };
  update: { approxKl: number };
  /** The iteration's stages' seconds, summed. */
  seconds?: number;
  eval?: { successRate: number; meanReward: number };
}

/** A metrics file's rows as read so far, and its lines that are not an iteration's metrics. */
export interface MetricsSnapshot {
  rows: readonly IterationRow[];
  problems: readonly string[];
}

/** Bytes read from the file at a time: a first read of a large file holds no more than this. */
const CHUNK_BYTES = 4 << 20;

/** Problem lines listed by line number; past them, only how many more there are. */
const LISTED_PROBLEMS = 10;

/**
 * A run's `metrics.jsonl`, followed as the trainer appends to it: the first read parses the whole
 * file, later reads only the bytes appended since; a file that shrank or was replaced (another
 * inode, or no line end where the last read stopped) is read again from the start. Each line is
 * kept trimmed to what the dashboard shows. A line that is not an iteration's metrics (bad JSON,
 * or fields missing) is left out and listed as a problem; the last line, until its line end is
 * written, is shown when it parses and read again next time.
 */
export class MetricsFile {
  private rows: IterationRow[] = [];
  private problems: string[] = [];
  private unlisted = 0;
  private lines = 0;
  /** Where the first line not yet ended began. */
  private offset = 0;
  private identity = '';
  /** Every byte read from disk since this was made: the file's growth, not its size per read. */
  bytesRead = 0;

  /** `name`: how problems name the file, e.g. `synthetic/metrics.jsonl`. */
  constructor(
    private readonly path: string,
    private readonly name: string,
  ) {}

  /** The rows now, or undefined while the file does not exist. */
  read(): MetricsSnapshot | undefined {
    let stats: Stats;
    try {
      stats = statSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.restart('');
      return undefined;
    }
    const fd = openSync(this.path, 'r');
    try {
      const identity = `${stats.dev}:${stats.ino}`;
      if (identity !== this.identity || stats.size < this.offset || !this.endsLine(fd)) {
        this.restart(identity);
      }
      const tail = this.readFrom(fd, stats.size);
      const problems =
        this.unlisted > 0
          ? [...this.problems, `${this.name}: ${this.unlisted} more such lines left out`]
          : this.problems;
      return { rows: tail ? [...this.rows, tail] : this.rows, problems };
    } finally {
      closeSync(fd);
    }
  }

  private restart(identity: string): void {
    this.rows = [];
    this.problems = [];
    this.unlisted = 0;
    this.lines = 0;
    this.offset = 0;
    this.identity = identity;
  }

  /** True when the byte before `offset` is a line end, as it was when it was read. */
  private endsLine(fd: number): boolean {
    if (this.offset === 0) return true;
    const byte = Buffer.alloc(1);
    this.bytesRead += readSync(fd, byte, 0, 1, this.offset - 1);
    return byte[0] === 0x0a;
  }

  /** Reads `[offset, size)`: keeps its ended lines, returns the row of an unended last one. */
  private readFrom(fd: number, size: number): IterationRow | undefined {
    let carry = Buffer.alloc(0);
    let position = this.offset;
    while (position < size) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, size - position));
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      this.bytesRead += read;
      // Where `bytes` starts in the file: the carried, unended line, then this chunk.
      const base = position - carry.length;
      position += read;
      const fresh = chunk.subarray(0, read);
      const bytes = carry.length > 0 ? Buffer.concat([carry, fresh]) : fresh;
      let start = 0;
      for (let end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
        this.addLine(bytes.subarray(start, end).toString('utf8'));
        start = end + 1;
      }
      this.offset = base + start;
      carry = Buffer.from(bytes.subarray(start));
    }
    // The unended last line: shown if whole, read again once its line end is written.
    const text = carry.toString('utf8').trim();
    if (text === '') return undefined;
    const row = parseRow(text);
    return typeof row === 'string' ? undefined : row;
  }

  private addLine(line: string): void {
    this.lines++;
    if (line.trim() === '') return;
    const row = parseRow(line);
    if (typeof row !== 'string') this.rows.push(row);
    else if (this.problems.length < LISTED_PROBLEMS) {
      this.problems.push(`${this.name} line ${this.lines}: ${row}; left out`);
    } else this.unlisted++;
  }
}

/** The row a metrics line holds, or why it holds none. */
function parseRow(line: string): IterationRow | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const record = (v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  const m = record(value);
  if (!m) return 'not an iteration’s metrics (not a JSON object)';
  const rollout = record(m.rollout);
  const update = record(m.update);
  const evaluation = m.eval === undefined ? undefined : record(m.eval);
  const required: Array<[string, unknown]> = [
    ['iteration', m.iteration],
    ['envSteps', m.envSteps],
    ['rollout.successRate', rollout?.successRate],
    ['rollout.meanReward', rollout?.meanReward],
    ['update.approxKl', update?.approxKl],
    ...(m.eval === undefined
      ? []
      : ([
          ['eval.successRate', evaluation?.successRate],
          ['eval.meanReward', evaluation?.meanReward],
        ] as Array<[string, unknown]>)),
  ];
  const missing = required.filter(([, v]) => typeof v !== 'number').map(([name]) => name);
  if (missing.length > 0) {
    return `not an iteration’s metrics (no number at ${missing.join(', ')})`;
  }
  const seconds = record(m.seconds);
  const informative = rollout?.informativeGroups;
  return {
    iteration: m.iteration as number,
    envSteps: m.envSteps as number,
    rollout: {
      successRate: rollout?.successRate as number,
      meanReward: rollout?.meanReward as number,
      ...(typeof informative === 'number' && { informativeGroups: informative }),
    },
    update: { approxKl: update?.approxKl as number },
    ...(seconds && {
      seconds: Object.values(seconds).reduce<number>(
        (sum, s) => sum + (typeof s === 'number' ? s : 0),
        0,
      ),
    }),
    ...(evaluation && {
      eval: {
        successRate: evaluation.successRate as number,
        meanReward: evaluation.meanReward as number,
      },
    }),
  };
}
