import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';

/** What `dreamgym view PATH` shows, by what PATH is. */
export type ViewTarget =
  /** A run folder (`dreamgym run`, `dreamgym demo`): dashboard, and the episodes of its buffer. */
  | { kind: 'run'; dir: string; buffer: string }
  /** A replay buffer's SQLite file. */
  | { kind: 'buffer'; path: string }
  /** A trajectory JSONL file. */
  | { kind: 'trajectories'; path: string };

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Bytes at a file's start read to tell a buffer, a trajectory file and neither apart. */
const HEAD_BYTES = 8192;

/**
 * Tells a run folder, a replay buffer and a trajectory file apart: a directory is a run folder
 * (its buffer `buffer.db`, else the first `buffer-*.db`, possibly not written yet); a file is a
 * buffer when it starts with SQLite's header and a trajectory file when it starts with text. A
 * missing path, or a file of other binary data (a compressed file, say), is a
 * {@link ConfigError} naming the three things it could be.
 */
export function viewTarget(path: string): ViewTarget {
  if (!existsSync(path)) {
    throw new ConfigError(
      `${path} does not exist: pass a run folder (dreamgym run --out DIR), a replay buffer (.db) or a trajectory file (.jsonl).`,
    );
  }
  if (statSync(path).isDirectory()) {
    const seeded = readdirSync(path)
      .filter((f) => /^buffer-.*\.db$/.test(f))
      .sort();
    const buffer =
      existsSync(join(path, 'buffer.db')) || seeded.length === 0
        ? 'buffer.db'
        : (seeded[0] as string);
    return { kind: 'run', dir: path, buffer: join(path, buffer) };
  }
  const head = fileHead(path);
  if (head.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) {
    return { kind: 'buffer', path };
  }
  const binary = binaryContent(head);
  if (binary) {
    throw new ConfigError(
      `${path} is not a trajectory file: ${binary}. Pass a run folder, a replay buffer (.db) or a trajectory file (.jsonl, text).`,
    );
  }
  return { kind: 'trajectories', path };
}

function fileHead(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** What binary data the head of a file holds, in words; undefined for UTF-8 text. */
function binaryContent(head: Buffer): string | undefined {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'it is gzip-compressed (gunzip it first)';
  const nul = head.indexOf(0);
  if (nul !== -1) return `it holds binary data (a NUL byte at offset ${nul})`;
  try {
    // A character cut by the end of the head is not an error: `stream` waits for the rest.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return 'it holds binary data (bytes that are not UTF-8 text)';
  }
  return undefined;
}
