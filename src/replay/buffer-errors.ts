import { DreamGymError } from '../core/errors.ts';

/** A buffer that must already exist (read commands, synthetic envs) does not. */
export class BufferNotFoundError extends DreamGymError {
  override name = 'BufferNotFoundError';
  constructor(readonly path: string) {
    super(
      `${path}: no replay buffer there. Check the path, or create one with dreamgym buffer import FILE --db ${path}.`,
    );
  }
}

/** `--db` names something that is not a replay-buffer file: a URL, a directory, another file. */
export class BufferLocationError extends DreamGymError {
  override name = 'BufferLocationError';
}

/**
 * sqlite-vec's platform binary, an optional dependency, is not installed (an install with
 * `--omit=optional` leaves it out): no buffer on SQLite can open. The message names the package.
 */
export class VectorExtensionMissingError extends DreamGymError {
  override name = 'VectorExtensionMissingError';
  constructor(
    readonly packageName: string,
    options?: ErrorOptions,
  ) {
    super(
      `replay buffers on SQLite need sqlite-vec's platform binary ${packageName}, an optional dependency that is not installed (npm install --omit=optional leaves it out): run npm install --omit=optional ${packageName}, or install without --omit=optional.`,
      options,
    );
  }
}

/** The database server behind a buffer URL could not be reached or refused the connection. */
export class BufferConnectionError extends DreamGymError {
  override name = 'BufferConnectionError';
}

/** Another process held the buffer's write lock for longer than this one would wait. */
export class BufferLockedError extends DreamGymError {
  override name = 'BufferLockedError';
  constructor(
    readonly path: string,
    readonly waitedMs: number,
  ) {
    super(
      `${path} is being written by another process (a bulk import?) and stayed locked for ${Math.round(waitedMs / 1000)} s; let that write finish, then try again (imports into one buffer run one after another).`,
    );
  }
}

/** Matches `scheme://…`: a URL, which a file path never is. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Refuses a database location this build cannot store a buffer at, naming what it supports:
 * replay buffers are SQLite files (or `:memory:`). A URL would otherwise be taken for a relative
 * path and "work" by creating a folder named after its scheme.
 */
export function checkBufferLocation(path: string): void {
  if (URL_LIKE.test(path)) {
    const scheme = path.slice(0, path.indexOf(':'));
    throw new BufferLocationError(
      `${scheme}:// buffers are not supported: a replay buffer is a SQLite file, so pass a file path such as runs/x/buffer.db (or :memory:), not ${redactUrl(path)}.`,
    );
  }
}

/** A URL without the password, fit to print. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
}
