import type { Browser } from 'playwright-core';
import { type LaunchedBrowser, type LaunchOptions, launchChromium } from './chromium.ts';

/**
 * A hold on the process's shared Chromium. Every BrowserEnv holds one; the browser starts with
 * the first {@link BrowserLease.browser} call and closes when the last lease is released.
 */
export interface BrowserLease {
  /** The running browser, launched (or relaunched after a crash) on demand. */
  browser(): Promise<Browser>;
  /** Gives the hold back; the last one closes the browser. Idempotent. */
  release(): Promise<void>;
}

let holders = 0;
let running: Promise<LaunchedBrowser> | undefined;
let launchOptions: LaunchOptions = {};
let launches = 0;
const exitHooks = { installed: false };

/**
 * A hold on the one Chromium shared by every BrowserEnv of this process (each episode then gets
 * its own context in it). A browser that crashed or was closed from outside is relaunched on the
 * next {@link BrowserLease.browser} call. `options` apply to the launch that happens next.
 */
export function acquireSharedBrowser(options: LaunchOptions = {}): BrowserLease {
  holders += 1;
  launchOptions = options;
  installExitHooks();
  let released = false;
  return {
    async browser() {
      if (released) throw new Error('BrowserLease.browser() after release()');
      return (await currentBrowser()).browser;
    },
    async release() {
      if (released) return;
      released = true;
      holders -= 1;
      if (holders === 0) await closeSharedBrowser();
    },
  };
}

/** How many leases are held now (for tests and diagnostics). */
export function sharedBrowserHolders(): number {
  return holders;
}

/** How many times this process has launched the shared browser (for tests and diagnostics). */
export function sharedBrowserLaunches(): number {
  return launches;
}

/**
 * The pid of the shared browser's main process when one is running: leak tests look for it, and
 * for its process group, in the process list.
 */
export async function sharedBrowserPid(): Promise<number | undefined> {
  const launched = await running?.catch(() => undefined);
  return launched?.browser.isConnected() ? launched.pid : undefined;
}

/**
 * The running browser, launching it when there is none (or it died). Concurrent callers share one
 * launch: the check and the launch happen with no await between them, so four envs resetting at
 * once start one Chromium, not four.
 */
async function currentBrowser(): Promise<LaunchedBrowser> {
  for (;;) {
    const pending = running ?? launch();
    const launched = await pending.catch(() => undefined);
    if (launched?.browser.isConnected()) return launched;
    // A failed launch: every caller waiting on it gets its error; the next call tries again.
    if (!launched) return pending;
    // Crashed or closed from outside: the first caller to notice relaunches, the others wait on it.
    if (running === pending) {
      running = undefined;
      await launched.close();
    }
  }
}

function launch(): Promise<LaunchedBrowser> {
  const next = launchChromium(launchOptions);
  launches += 1;
  running = next;
  // A failed launch is not cached: the next reset tries again (and names the fix again).
  next.catch(() => {
    if (running === next) running = undefined;
  });
  return next;
}

async function closeSharedBrowser(): Promise<void> {
  const launched = running;
  running = undefined;
  await (await launched?.catch(() => undefined))?.close();
}

/**
 * Playwright kills the browsers it launched when Node exits (its `exit` handler), but a
 * SIGINT/SIGTERM/SIGHUP with no handler ends Node without an `exit` event, and Chromium runs in its
 * own process group so a terminal's Ctrl-C does not reach it. So: on those signals, when the
 * program has no handler of its own, exit with the usual code, which runs Playwright's kill. A
 * program with its own handler decides when to exit; exiting then kills the browser the same way.
 */
function installExitHooks(): void {
  if (exitHooks.installed) return;
  exitHooks.installed = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, function onSignal() {
      if (process.listenerCount(signal) === 1) process.exit(code);
    });
  }
}
