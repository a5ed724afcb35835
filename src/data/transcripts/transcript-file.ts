/**
 * Transcript files: detecting a file's format and reading a whole transcript file (and its
 * outcomes file) into trajectories, all or nothing.
 */

import { open, readFile, stat } from 'node:fs/promises';
import { ConfigError } from '../../core/errors.ts';
import { readOpenAiChat } from './openai-chat.ts';
import { readOtlpGenAi } from './otlp.ts';
import { readOutcomes } from './outcome.ts';
import { type ImportFormat, SNIFF_CHARS, sniffFormat } from './sniff.ts';
import type {
  TranscriptRead,
  TranscriptReader,
  TranscriptReadOptions,
} from './transcript-reader.ts';

/** The transcript formats (those of {@link ImportFormat} that are not dreamgym's own). */
export type TranscriptFormat = Exclude<ImportFormat, 'trajectories'>;

/** The reader of each transcript format. */
export const TRANSCRIPT_READERS: Record<TranscriptFormat, TranscriptReader> = {
  'openai-chat': readOpenAiChat,
  otlp: readOtlpGenAi,
};

/**
 * The largest transcript file read: transcripts are read whole (OTLP traces may be spread over the
 * file), and a JavaScript string holds at most ~512 MiB.
 */
export const MAX_TRANSCRIPT_BYTES = 256 * 2 ** 20;

/** The format the start of the file at `path` shows (see `sniffFormat`), or undefined. */
export async function detectFileFormat(path: string): Promise<ImportFormat | undefined> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_CHARS);
    const { bytesRead } = await handle.read(head, 0, SNIFF_CHARS, 0);
    return sniffFormat(head.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await handle.close();
  }
}

/** How to read a transcript file. */
export interface TranscriptFileOptions extends Omit<TranscriptReadOptions, 'file' | 'outcomes'> {
  format: TranscriptFormat;
  /** A JSON Lines file of `{"id", "reward"}` outcomes (see `readOutcomes`). */
  outcomesPath?: string;
}

/**
 * Reads a whole transcript file into trajectories, all or nothing: a malformed transcript or
 * outcomes file throws a `DataFormatError` naming the file, the line and the reason.
 */
export async function readTranscriptFile(
  path: string,
  { format, outcomesPath, ...options }: TranscriptFileOptions,
): Promise<TranscriptRead> {
  const outcomes =
    outcomesPath === undefined
      ? undefined
      : readOutcomes(await readText(outcomesPath, 'outcomes file'), outcomesPath);
  const text = await readText(path, `${format} transcript`);
  return TRANSCRIPT_READERS[format](text, {
    ...options,
    file: path,
    ...(outcomes && { outcomes }),
  });
}

async function readText(path: string, what: string): Promise<string> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      throw new ConfigError(`${path} is a directory; pass the ${what} itself.`);
    }
    size = info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(
        `${path}: no such ${what}. Check the path (relative paths start at ${process.cwd()}).`,
      );
    }
    throw error;
  }
  if (size > MAX_TRANSCRIPT_BYTES) {
    throw new ConfigError(
      `${path} is ${(size / 2 ** 20).toFixed(0)} MiB; a ${what} is read whole and may hold at most ${MAX_TRANSCRIPT_BYTES / 2 ** 20} MiB. Split it (whole conversations or whole traces per file) and import the parts.`,
    );
  }
  return readFile(path, 'utf8');
}
