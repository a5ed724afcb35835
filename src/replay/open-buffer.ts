import { BufferLocationError, redactUrl } from './buffer-errors.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import type { ReplayBuffer as ReplayBufferContract } from './replay-buffer.ts';
import { type SqliteBufferOptions, SqliteReplayBuffer } from './sqlite-buffer.ts';

/**
 * Where a buffer lives (a SQLite file, `:memory:`, a `postgres://` URL), and how it embeds,
 * indexes and locks (the locking and file options apply to SQLite only).
 */
export interface OpenBufferOptions extends SqliteBufferOptions {
  /** The location as a URL; the same as `path`. */
  url?: string;
}

/** Matches `scheme://…`: a URL, which a file path never is. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The locations `open` accepts, for error messages. */
export const SUPPORTED_LOCATIONS =
  'a SQLite file path (e.g. runs/x/buffer.db), :memory:, or a PostgreSQL URL (postgres://user@host/db)';

/** Matches the URLs of the PostgreSQL backend. */
const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * Opens (or creates) the replay buffer at a location: a SQLite file or `:memory:` (the
 * default), or a PostgreSQL database (`postgres://…`, whose schema is created when missing).
 * Any other URL is refused with the supported locations named.
 */
async function open(options: OpenBufferOptions = {}): Promise<ReplayBufferContract> {
  if (options.url !== undefined && options.path !== undefined && options.url !== options.path) {
    throw new BufferLocationError(
      `ReplayBuffer.open was given both path ${options.path} and url ${redactUrl(options.url)}; pass one.`,
    );
  }
  const location = options.url ?? options.path ?? ':memory:';
  if (POSTGRES_URL.test(location)) {
    return PostgresReplayBuffer.open({
      url: location,
      ...(options.encoder && { encoder: options.encoder }),
      ...(options.ann && { ann: options.ann }),
    });
  }
  if (URL_LIKE.test(location)) {
    const scheme = location.slice(0, location.indexOf(':'));
    throw new BufferLocationError(
      `${scheme}:// replay buffers are not supported (${redactUrl(location)}); pass ${SUPPORTED_LOCATIONS}.`,
    );
  }
  const { url: _url, ...sqlite } = options;
  return SqliteReplayBuffer.open({ ...sqlite, path: location });
}

/** The replay buffer contract (see `replay-buffer.ts`). */
export type ReplayBuffer = ReplayBufferContract;

/** Opens replay buffers by location: `ReplayBuffer.open({ path })` or `ReplayBuffer.open({ url })`. */
export const ReplayBuffer = {
  /** Opens (or creates) the buffer at a location: a SQLite file, `:memory:` or `postgres://…`. */
  open,
};
