import { existsSync } from 'node:fs';
import type { Trajectory } from '../core/types.ts';
import { BufferLocationError } from '../replay/buffer-errors.ts';
import { BufferReader } from '../replay/buffer-reader.ts';
import type { EpisodeSource, EpisodeSummary } from './episode-source.ts';

/** Trajectory headers read per query; a buffer of any size is read in slices this big. */
const SLICE = 50_000;

/**
 * The episodes of a replay buffer, read only. With `waitForFile` a missing database is not an
 * error but an empty source until it appears (a run folder whose run has not written it yet).
 */
export class BufferSource implements EpisodeSource {
  readonly description: string;
  private reader: BufferReader | undefined;
  private lastRowid = 0;
  private instructions = new Map<string, string>();
  /** Why a run folder's buffer could not be opened yet, if it could not. */
  private waiting: string | undefined;

  constructor(
    private readonly path: string,
    private readonly options: { waitForFile?: boolean } = {},
  ) {
    this.description = `replay buffer ${path}`;
    if (!options.waitForFile) this.reader = BufferReader.open(path);
  }

  async poll(): Promise<EpisodeSummary[]> {
    if (!this.reader) {
      if (!existsSync(this.path)) return [];
      try {
        this.reader = BufferReader.open(this.path);
        this.waiting = undefined;
      } catch (error) {
        // A run creates its buffer's file a moment before the schema in it: try again next time.
        if (!(error instanceof BufferLocationError)) throw error;
        this.waiting = error.message;
        return [];
      }
    }
    const found: EpisodeSummary[] = [];
    for (;;) {
      const headers = this.reader.headers(this.lastRowid, SLICE);
      for (const header of headers) {
        if (!this.instructions.has(header.taskId)) {
          this.instructions = this.reader.instructions();
          if (!this.instructions.has(header.taskId)) this.instructions.set(header.taskId, '');
        }
        found.push({ ...header, instruction: this.instructions.get(header.taskId) ?? '' });
      }
      if (headers.length < SLICE) break;
      this.lastRowid = (headers.at(-1) as { rowid: number }).rowid;
    }
    if (found.length > 0) this.lastRowid = (found.at(-1) as EpisodeSummary).rowid;
    return found;
  }

  async episode(id: string): Promise<Trajectory | undefined> {
    return this.reader?.trajectory(id);
  }

  warnings(): readonly string[] {
    if (!this.options.waitForFile || this.reader) return [];
    return [
      this.waiting ??
        `${this.path} does not exist yet: episodes appear once the run has written its buffer.`,
    ];
  }

  async close(): Promise<void> {
    this.reader?.close();
  }
}
