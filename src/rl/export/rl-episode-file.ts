/**
 * Reading and writing `dreamgym.rl-episode` JSONL files. The writer publishes the file whole or
 * not at all (it writes `<path>.partial` and renames), so a trainer never reads half an export.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DataFormatError } from '../../core/errors.ts';
import { encodeRlEpisode, parseRlEpisodeLine, type RlEpisode } from './rl-episode.ts';

/** Writes the episodes to `path`, one validated line each, replacing any file there. */
export async function writeRlEpisodes(path: string, episodes: readonly RlEpisode[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  const file = await open(partial, 'w');
  try {
    for (const episode of episodes) await file.write(`${encodeRlEpisode(episode)}\n`);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(partial, { force: true });
    throw error;
  }
  await file.close();
  await rename(partial, path);
}

/** Reads and validates a whole file; the first bad line throws a {@link DataFormatError}. */
export async function readRlEpisodes(path: string): Promise<RlEpisode[]> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  const episodes: RlEpisode[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      episodes.push(parseRlEpisodeLine(line));
    } catch (error) {
      throw new DataFormatError(path, i + 1, (error as Error).message);
    }
  }
  return episodes;
}
