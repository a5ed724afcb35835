/**
 * The remote sessions this process holds open, and a best-effort close of them when the process
 * ends. An AgentGym server keeps every session it created (ALFWorld keeps a whole TextWorld game
 * per session) until told to close it, so a run killed with Ctrl-C would otherwise leak them.
 *
 * - SIGINT / SIGTERM: close the open sessions (waiting at most {@link SIGNAL_CLOSE_DEADLINE_MS}),
 *   then re-raise the signal so the process still dies of it, unless other listeners own that
 *   signal, in which case the decision is theirs, as it would be without us.
 * - `beforeExit` (the event loop ran dry, typically a script that forgot `close()`): close them.
 * - `exit` cannot help: only synchronous code runs there, and closing is an HTTP call. A process
 *   that calls `process.exit()` with sessions open leaks them.
 *
 * The listeners are installed only while a session is open, so they neither keep the process
 * alive nor change what Ctrl-C does when no session is open.
 */

/** Closes one session; expected not to throw. */
export type SessionCloser = () => Promise<void>;

export const SIGNAL_CLOSE_DEADLINE_MS = 3_000;

const open = new Set<SessionCloser>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Registers an open session; its closer runs if the process ends before it is untracked. */
export function trackSession(close: SessionCloser): void {
  open.add(close);
  if (open.size === 1) install();
}

/** Unregisters a session (it was closed normally). */
export function untrackSession(close: SessionCloser): void {
  open.delete(close);
  if (open.size === 0) uninstall();
}

/** How many sessions are open now. */
export function openSessionCount(): number {
  return open.size;
}

/** Closes every open session, waiting at most `deadlineMs`. */
async function closeOpenSessions(deadlineMs: number): Promise<void> {
  const closing = Promise.allSettled([...open].map((close) => close()));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
    timer.unref();
  });
  await Promise.race([closing, deadline]);
  clearTimeout(timer);
}

let closingOnSignal = false;

function onSignal(signal: NodeJS.Signals): void {
  // A second Ctrl-C while closing means "stop now".
  if (closingOnSignal) {
    reraise(signal);
    return;
  }
  closingOnSignal = true;
  void closeOpenSessions(SIGNAL_CLOSE_DEADLINE_MS).finally(() => {
    closingOnSignal = false;
    reraise(signal);
  });
}

/** Delivers the signal again without us, so its default action (ending the process) happens. */
function reraise(signal: NodeJS.Signals): void {
  uninstall();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function onBeforeExit(): void {
  void closeOpenSessions(SIGNAL_CLOSE_DEADLINE_MS);
}

function install(): void {
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('beforeExit', onBeforeExit);
}

function uninstall(): void {
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('beforeExit', onBeforeExit);
}
