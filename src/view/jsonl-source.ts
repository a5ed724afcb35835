import { open, stat } from 'node:fs/promises';
import { finalReward, isSuccess, type Trajectory } from '../core/types.ts';
import { TrajectoryFileNotFoundError } from '../data/trajectory-file.ts';
import { parseTrajectoryLine } from '../data/trajectory-format.ts';
import { type EpisodeSource, type EpisodeSummary, endReason } from './episode-source.ts';

/** Where one trajectory's line lies in the file. */
interface LineSpan {
  offset: number;
  length: number;
}

/**
 * The episodes of a trajectory JSONL file, read only. The file is read once through, keeping
 * only each episode's summary and where its line lies; an episode's steps are read back from
 * there when it is opened. A file that grows (a run recording episodes) is read on from where the
 * last poll stopped. Malformed lines are skipped and reported as warnings.
 */
export class JsonlSource implements EpisodeSource {
  readonly description: string;
  private readonly spans = new Map<string, LineSpan>();
  private readonly problems: string[] = [];
  private readBytes = 0;
  private lines = 0;

  constructor(private readonly path: string) {
    this.description = `trajectory file ${path}`;
  }

  async poll(): Promise<EpisodeSummary[]> {
    let size: number;
    try {
      size = (await stat(this.path)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new TrajectoryFileNotFoundError(this.path);
      throw error;
    }
    if (size <= this.readBytes) return [];
    const handle = await open(this.path, 'r');
    const found: EpisodeSummary[] = [];
    try {
      const chunk = Buffer.alloc(size - this.readBytes);
      await handle.read(chunk, 0, chunk.length, this.readBytes);
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        this.lines++;
        const summary = this.summarize(chunk.subarray(start, end), this.readBytes + start);
        if (summary) found.push(summary);
        start = end + 1;
      }
      // A last line without its newline may still be being written: read it next time.
      this.readBytes += start;
    } finally {
      await handle.close();
    }
    return found;
  }

  private summarize(line: Buffer, offset: number): EpisodeSummary | undefined {
    const text = line.toString('utf8').replace(/^\uFEFF/, '');
    if (text.trim() === '') return undefined;
    let trajectory: Trajectory;
    try {
      trajectory = parseTrajectoryLine(text);
    } catch (error) {
      this.problems.push(`line ${this.lines}: ${(error as Error).message}`);
      return undefined;
    }
    this.spans.set(trajectory.id, { offset, length: line.length });
    return {
      rowid: this.spans.size,
      id: trajectory.id,
      env: trajectory.env,
      taskId: trajectory.task.id,
      instruction: trajectory.task.instruction,
      provenance: trajectory.provenance,
      policyId: trajectory.policyId,
      startedAt: trajectory.startedAt,
      steps: trajectory.steps.length,
      finalReward: finalReward(trajectory),
      success: isSuccess(trajectory),
      end: endReason(trajectory),
    };
  }

  async episode(id: string): Promise<Trajectory | undefined> {
    const span = this.spans.get(id);
    if (!span) return undefined;
    const handle = await open(this.path, 'r');
    try {
      const line = Buffer.alloc(span.length);
      await handle.read(line, 0, span.length, span.offset);
      return parseTrajectoryLine(line.toString('utf8').replace(/^\uFEFF/, ''));
    } finally {
      await handle.close();
    }
  }

  warnings(): readonly string[] {
    return this.problems;
  }

  async close(): Promise<void> {}
}
