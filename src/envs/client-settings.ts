import { ConfigError } from '../core/errors.ts';

/**
 * Time to wait for one answer from an env server (OpenEnv, AgentGym) unless its ref says
 * `#timeout=SECONDS`: ample for a reset that loads a game or warms an index, short enough that a
 * hung server fails a run in half a minute.
 */
export const DEFAULT_SERVER_TIMEOUT_MS = 30_000;

/** A server URL of an env ref, and the client settings written after it. */
export interface ClientSettings {
  /** The URL without the settings. */
  url: string;
  /** `#timeout=SECONDS`, in ms; absent when the ref does not set it. */
  timeoutMs?: number;
}

const SETTINGS = `#timeout=SECONDS (the time to wait for one answer, default ${DEFAULT_SERVER_TIMEOUT_MS / 1000})`;

/**
 * Splits the client's settings off the server URL of env ref `ref`: `URL#timeout=SECONDS`. They
 * go in the URL's fragment because a client never sends that to the server, and because every
 * command that takes an env ref then takes them too.
 */
export function clientSettings(url: string, ref: string): ClientSettings {
  const at = url.indexOf('#');
  if (at < 0) return { url };
  const setting = url.slice(at + 1);
  const match = /^timeout=(.*)$/.exec(setting);
  if (!match) {
    throw new ConfigError(
      `"#${setting}" in "${ref}" is no client setting; the one there is ${SETTINGS}.`,
    );
  }
  const seconds = Number(match[1]);
  if (match[1] === '' || !(Number.isFinite(seconds) && seconds > 0)) {
    throw new ConfigError(
      `"#${setting}" in "${ref}": the timeout is a number of seconds above 0, e.g. #timeout=120.`,
    );
  }
  return { url: url.slice(0, at), timeoutMs: Math.round(seconds * 1000) };
}
