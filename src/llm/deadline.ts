import { LlmAbortedError, LlmTimeoutError } from './errors.ts';

/**
 * Runs one request with its own deadline. `run` gets a signal that fires on the deadline or on
 * the caller's abort; the race below also settles when a backend ignores that signal, so a hung
 * server can never hang a rollout. Which of the two fired decides the error: a timeout
 * (retryable) or an abort (not).
 */
export async function withDeadline<T>(
  run: (signal: AbortSignal) => Promise<T>,
  options: { timeoutMs: number; signal?: AbortSignal; server: string },
): Promise<T> {
  const { timeoutMs, signal, server } = options;
  if (signal?.aborted) throw new LlmAbortedError(server);
  const controller = new AbortController();
  let timedOut = false;
  let stop: (error: Error) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const onAbort = () => {
    controller.abort();
    stop(new LlmAbortedError(server));
  };
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    stop(new LlmTimeoutError(server, timeoutMs));
  }, timeoutMs);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([run(controller.signal), stopped]);
  } catch (error) {
    if (timedOut) throw new LlmTimeoutError(server, timeoutMs);
    if (signal?.aborted) throw new LlmAbortedError(server);
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
