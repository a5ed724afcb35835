import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, DataFormatError } from '../core/errors.ts';
import type { Provenance, Trajectory } from '../core/types.ts';
import { TrajectoryFileNotFoundError, TrajectoryWriter } from '../data/trajectory-file.ts';
import { parseTrajectoryLine, TrajectoryFormatError } from '../data/trajectory-format.ts';
import type { ReplayBuffer } from './replay-buffer.ts';

/**
 * The longest line an import reads: one trajectory. A longer one means the file is not trajectory
 * JSONL (a 1 GiB file without a newline once cost 804 MB and ended in `Invalid string length`).
 */
export const MAX_LINE_BYTES = 64 * 2 ** 20;

/**
 * Imports a trajectory JSONL file into the buffer, all or nothing: a malformed line fails the
 * whole import with `file:line` and nothing is kept. Read line by line in one transaction, so a
 * file of millions of transitions is never held in memory.
 */
export async function importJsonl(
  buffer: ReplayBuffer,
  path: string,
  options: { maxLineBytes?: number } = {},
): Promise<{ added: number; skipped: number }> {
  return buffer.addStream(readTrajectoryLines(path, options));
}

/**
 * Yields a trajectory file's trajectories one line at a time, holding at most `maxLineBytes` of a
 * line in memory: a longer line fails with a {@link DataFormatError} naming it, and so does a
 * malformed one. A directory or a missing file fails before anything is read.
 */
export async function* readTrajectoryLines(
  path: string,
  { maxLineBytes = MAX_LINE_BYTES }: { maxLineBytes?: number } = {},
): AsyncGenerator<Trajectory> {
  await checkTrajectoryFile(path);
  let lineNumber = 0;
  const parse = (bytes: Buffer): Trajectory | undefined => {
    lineNumber++;
    let text = bytes.toString('utf8');
    if (lineNumber === 1) text = text.replace(/^\uFEFF/, '');
    if (text.trim() === '') return undefined;
    try {
      return parseTrajectoryLine(text);
    } catch (error) {
      if (error instanceof TrajectoryFormatError) {
        throw new DataFormatError(path, lineNumber, error.message);
      }
      throw error;
    }
  };
  const tooLong = () =>
    new DataFormatError(
      path,
      lineNumber + 1,
      `line longer than ${maxLineBytes / 2 ** 20} MiB: a trajectory file holds one JSON trajectory per line; is this a JSONL file?`,
    );
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of createReadStream(path, {
    highWaterMark: 2 ** 20,
  }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (pendingBytes + end - start > maxLineBytes) throw tooLong();
      const piece = chunk.subarray(start, end);
      const line = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      const trajectory = parse(line);
      if (trajectory) yield trajectory;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong();
    }
  }
  const trajectory = parse(Buffer.concat(pending));
  if (trajectory) yield trajectory;
}

/** Fails with the fix unless `path` is a file that can be read as trajectory JSONL. */
export async function checkTrajectoryFile(path: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TrajectoryFileNotFoundError(path);
    }
    throw error;
  }
  if (isDirectory) {
    throw new ConfigError(
      `${path} is a directory; pass a trajectory JSONL file (one trajectory per line), e.g. ${join(path, 'offline.jsonl')}.`,
    );
  }
}

/** Writes the buffer's trajectories (optionally one env or provenance) as trajectory JSONL. */
export async function exportJsonl(
  buffer: ReplayBuffer,
  path: string,
  filter: { env?: string; provenance?: Provenance } = {},
): Promise<number> {
  const writer = await TrajectoryWriter.open(path);
  try {
    for await (const trajectory of buffer.trajectories(filter)) await writer.write(trajectory);
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return writer.count;
}
