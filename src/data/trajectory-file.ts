/**
 * Reading and writing trajectory JSONL files (see docs/trajectory-format.md).
 *
 * The writer never leaves a half-written file under the final name: it writes to `<path>.partial`
 * and renames on close — unless told to write in place, as a server's record is (a crash must
 * not hide its finished episodes). The whole-file reader is all-or-nothing; the streaming reader
 * is not.
 */

import { constants } from 'node:fs';
import { copyFile, type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { DataFormatError, DreamGymError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';
import {
  encodeTrajectory,
  parseTrajectoryLine,
  TrajectoryFormatError,
} from './trajectory-format.ts';

/** Suffix of the file a {@link TrajectoryWriter} writes to until it is closed. */
export const PARTIAL_SUFFIX = '.partial';

/** A trajectory file to read does not exist. */
export class TrajectoryFileNotFoundError extends DreamGymError {
  override name = 'TrajectoryFileNotFoundError';
  constructor(readonly file: string) {
    const from = isAbsolute(file) ? '' : ` (relative paths start at ${process.cwd()})`;
    super(`${file}: no such trajectory file. Check the path${from}.`);
  }
}

/** A trajectory file cannot be written: another writer holds it, or this writer is closed or failed. */
export class TrajectoryWriteError extends DreamGymError {
  override name = 'TrajectoryWriteError';
}

/** How a trajectory writer opens its file. */
export interface TrajectoryWriterOptions {
  /** Keep the trajectories already in the file and add after them. Default false: replace the file. */
  append?: boolean;
  /**
   * Append to `path` itself, each line as it is written, instead of publishing `<path>.partial`
   * at `close()`: a trajectory is in the file once its `write` resolves, and a crash of the
   * process loses none written (a machine crash may lose the last ones; `close()` syncs). The
   * file's trajectories are kept (`append` is implied), and `abort()` keeps what was written.
   * For a server's `--record`, whose episodes end over days. Default false.
   */
  inPlace?: boolean;
}

/**
 * Writes trajectories to a JSONL file, one validated line each.
 *
 * Lines go to `<path>.partial`; `close()` renames it to `path`, so a crash leaves the previous file
 * (if any) untouched and the partial one beside it. In append mode the existing file is first
 * copied to `<path>.partial`. In place (`inPlace`), lines go straight to the end of `path`.
 * Calls to `write` may overlap; lines land in call order.
 */
export class TrajectoryWriter {
  #written = 0;
  #failed = false;
  #ending: Promise<void> | undefined;
  #queue: Promise<void> = Promise.resolve();

  private constructor(
    /** The final file, which exists (with this writer's lines) once `close()` resolves. */
    readonly path: string,
    /** Where the lines go until `close()`: `<path>.partial`, or `path` itself in place. */
    readonly partialPath: string,
    private readonly handle: FileHandle,
  ) {}

  /**
   * Opens `path` for writing, creating parent directories. Fails if `path` is a directory (before
   * anything is written, not at `close`), or if `<path>.partial` exists: another writer is using
   * it, or an earlier run crashed and left it for inspection.
   */
  static async open(
    path: string,
    options: TrajectoryWriterOptions = {},
  ): Promise<TrajectoryWriter> {
    const existing = await stat(path).catch(() => undefined);
    if (existing?.isDirectory()) {
      throw new TrajectoryWriteError(
        `${path} is a directory; give a file to write the trajectories to, e.g. ${join(path, 'episodes.jsonl')}.`,
      );
    }
    await mkdir(dirname(path), { recursive: true });
    if (options.inPlace) return new TrajectoryWriter(path, path, await openForAppend(path));
    const partialPath = path + PARTIAL_SUFFIX;
    const handle = await claimPartial(path, partialPath, options.append ?? false);
    return new TrajectoryWriter(path, partialPath, handle);
  }

  /** Number of trajectories this writer has written (in append mode, not counting earlier ones). */
  get count(): number {
    return this.#written;
  }

  /**
   * Validates and appends one trajectory. An invalid trajectory rejects with a
   * `TrajectoryFormatError` and writes nothing; the writer stays usable.
   */
  async write(trajectory: Trajectory): Promise<void> {
    if (this.#ending) {
      throw new TrajectoryWriteError(`${this.path}: the writer is closed. Open a new writer.`);
    }
    const line = `${encodeTrajectory(trajectory)}\n`;
    const run = this.#queue.then(async () => {
      if (this.#failed) {
        throw new TrajectoryWriteError(
          `${this.path}: an earlier write failed. Close the writer; what was written is in ${this.partialPath}.`,
        );
      }
      await this.handle.appendFile(line);
      this.#written++;
    });
    this.#queue = run.catch(() => {
      this.#failed = true;
    });
    return run;
  }

  /**
   * Waits for pending writes, flushes to disk and renames `<path>.partial` to `path` (in place,
   * only flushes). Calling it again returns the same promise. If a write failed, the partial file
   * is left in place and close rejects.
   */
  close(): Promise<void> {
    this.#ending ??= this.#finish();
    return this.#ending;
  }

  /**
   * Stops without publishing: deletes `<path>.partial` and leaves `path` as it was. In place, the
   * lines written stay (they are the file's), and the file is closed.
   */
  abort(): Promise<void> {
    this.#ending ??= this.#queue.then(async () => {
      await this.handle.close();
      if (!this.#inPlace) await rm(this.partialPath, { force: true });
    });
    return this.#ending;
  }

  get #inPlace(): boolean {
    return this.partialPath === this.path;
  }

  async #finish(): Promise<void> {
    await this.#queue;
    try {
      if (this.#failed) {
        throw new TrajectoryWriteError(
          `${this.path}: a write failed, so the file was not finished; what was written is in ${this.partialPath}.`,
        );
      }
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
    if (!this.#inPlace) await rename(this.partialPath, this.path);
  }
}

/** Creates `<path>.partial` (a copy of `path` when appending) and opens it for appending. */
async function claimPartial(
  path: string,
  partialPath: string,
  append: boolean,
): Promise<FileHandle> {
  try {
    if (!append) return await open(partialPath, 'ax');
    await copyExisting(path, partialPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new TrajectoryWriteError(
        `${partialPath} already exists: another writer is writing ${path}, or an earlier run stopped before closing it. If no writer is running, delete ${partialPath} (or rename it to keep its trajectories) and try again.`,
        { cause: error },
      );
    }
    throw error;
  }
  try {
    return await openForAppend(partialPath);
  } catch (error) {
    await rm(partialPath, { force: true });
    throw error;
  }
}

/** Opens `path` (created if missing) for appending whole lines. */
async function openForAppend(path: string): Promise<FileHandle> {
  const handle = await open(path, 'a+');
  try {
    await endWithNewline(handle);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function copyExisting(path: string, partialPath: string): Promise<void> {
  try {
    await copyFile(path, partialPath, constants.COPYFILE_EXCL);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // Nothing to continue: start an empty partial file, still refusing to clobber another writer's.
    await (await open(partialPath, 'ax')).close();
  }
}

/** A hand-edited file may lack its final newline; without one the next line would be glued on. */
async function endWithNewline(handle: FileHandle): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] !== 0x0a) await handle.appendFile('\n');
}

/**
 * Reads and validates a whole trajectory file. Blank lines are skipped. All-or-nothing: the first
 * malformed line throws a {@link DataFormatError} with its 1-based line number and nothing is returned.
 */
export async function readTrajectories(path: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const trajectory of readTrajectoriesStream(path)) trajectories.push(trajectory);
  return trajectories;
}

/**
 * Yields a file's trajectories one line at a time, for files too large to hold in memory.
 * Not all-or-nothing: trajectories before a malformed line have already been yielded when its
 * {@link DataFormatError} is thrown.
 */
export async function* readTrajectoriesStream(path: string): AsyncGenerator<Trajectory> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TrajectoryFileNotFoundError(path);
    }
    throw error;
  }
  try {
    let lineNumber = 0;
    for await (const line of handle.readLines({ autoClose: false })) {
      lineNumber++;
      const text = lineNumber === 1 ? line.replace(/^\uFEFF/, '') : line;
      if (text.trim() === '') continue;
      let trajectory: Trajectory;
      try {
        trajectory = parseTrajectoryLine(text);
      } catch (error) {
        if (error instanceof TrajectoryFormatError) {
          throw new DataFormatError(path, lineNumber, error.message);
        }
        throw error;
      }
      yield trajectory;
    }
  } finally {
    await handle.close();
  }
}
