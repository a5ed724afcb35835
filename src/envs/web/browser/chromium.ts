import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { DreamGymError } from '../../../core/errors.ts';

/** No Chromium could be found or started. The message names both ways to get one. */
export class BrowserNotFoundError extends DreamGymError {
  override name = 'BrowserNotFoundError';
}

/**
 * Chromium's headless shell (the old headless mode, Debian's `chromium-headless-shell`): no
 * browser UI behind the page, so it is the one to drive headless. The full browser's `--headless`
 * runs the whole browser without a window; on the 2-core machine the built-in sites' expert
 * played 2.4× fewer episodes a minute in it at 4 in parallel (`npm run bench -- web`).
 */
const HEADLESS_SHELLS = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
];

/** Where Debian and other distributions put their Chromium. */
const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

const HOW_TO_GET_ONE =
  'Install one: on Debian/Ubuntu `apt-get update && apt-get install -y chromium-headless-shell chromium` (or `npm run setup`, which does that), ' +
  'or elsewhere `npx playwright install chromium`; or point DREAMGYM_CHROMIUM at a Chromium/Chrome executable.';

/**
 * The Chromium executable to drive: `DREAMGYM_CHROMIUM` if set; else, for a headless browser
 * (the default), a system headless shell; else a system Chromium; else the one Playwright
 * installed (`npx playwright install chromium`). `exists` checks a path (tests give their own).
 * Throws {@link BrowserNotFoundError} naming both ways to get one.
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  {
    headless = true,
    exists = existsSync,
  }: { headless?: boolean; exists?: (path: string) => boolean } = {},
): string {
  const named = env.DREAMGYM_CHROMIUM;
  if (named) {
    if (!exists(named)) {
      throw new BrowserNotFoundError(
        `DREAMGYM_CHROMIUM=${named} does not exist. ${HOW_TO_GET_ONE}`,
      );
    }
    return named;
  }
  const candidates = headless ? [...HEADLESS_SHELLS, ...SYSTEM_CANDIDATES] : SYSTEM_CANDIDATES;
  for (const candidate of candidates) if (exists(candidate)) return candidate;
  let playwrights: string | undefined;
  try {
    playwrights = chromium.executablePath();
  } catch {
    playwrights = undefined;
  }
  if (playwrights && exists(playwrights)) return playwrights;
  throw new BrowserNotFoundError(`no Chromium found. ${HOW_TO_GET_ONE}`);
}

/**
 * Flags for a headless Chromium on a machine with no network: no background traffic, no
 * component updates, no first-run UI, no sync; no sandbox when running as root (Chromium refuses
 * to start otherwise).
 */
export function chromiumArgs(): string[] {
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-extensions',
    '--no-default-browser-check',
    '--metrics-recording-only',
    '--disable-dev-shm-usage',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}

export interface LaunchOptions {
  /** Executable to run; default {@link findChromium}. */
  executablePath?: string;
  /** Default true. */
  headless?: boolean;
}

/**
 * A running Chromium. Playwright gives it a fresh temporary user-data dir and removes it on close.
 */
export interface LaunchedBrowser {
  browser: Browser;
  executablePath: string;
  /**
   * The pid of the browser's main process, which leads the process group of every process it
   * starts (Playwright starts it detached); undefined when Chromium did not say.
   */
  pid: number | undefined;
  /**
   * Closes the browser, every context with it, and resolves once its processes have exited and
   * been reaped (at most {@link REAP_WAIT_MS} after the browser closed). Idempotent.
   */
  close(): Promise<void>;
}

/** How long close() waits for init to reap Chromium's orphaned zygotes (up to 2 s measured here). */
export const REAP_WAIT_MS = 5_000;

/**
 * Starts one headless Chromium. One browser serves many episodes: give each its own
 * `browser.newContext()`. A browser that fails to start is a {@link BrowserNotFoundError} with
 * Chromium's own words and the fix.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const headless = options.headless ?? true;
  const executablePath = options.executablePath ?? findChromium(process.env, { headless });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      headless,
      args: chromiumArgs(),
      // Our own handlers close the browser; Playwright's would race them on Ctrl-C.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    throw new BrowserNotFoundError(
      `Chromium at ${executablePath} failed to start: ${(error as Error).message.split('\n')[0]}. ${HOW_TO_GET_ONE}`,
    );
  }
  const pid = await browserPid(browser).catch(() => undefined);
  let closing: Promise<void> | undefined;
  return {
    browser,
    executablePath,
    pid,
    close() {
      closing ??= browser
        .close()
        .catch(() => undefined)
        .then(() => (pid === undefined ? undefined : groupReaped(pid, REAP_WAIT_MS)));
      return closing;
    },
  };
}

/** The pid of the browser's main process, as Chromium reports it over CDP. */
async function browserPid(browser: Browser): Promise<number | undefined> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await session.send('SystemInfo.getProcessInfo');
    return processInfo.find((info) => info.type === 'browser')?.id;
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/**
 * Resolves once no process of group `pgid` is left, exited and reaped (a zombie still takes a
 * signal), or after `ms`. Playwright waits for the browser's main process only; its zygotes outlive
 * it and, orphaned, wait as zombies until init reaps them, so a command that exited at once left
 * them in the process list. Not waited for where it cannot help: when Node is init itself (a
 * container without `--init`: orphans come to Node, which never reaps them) and on Windows.
 */
async function groupReaped(pgid: number, ms: number): Promise<void> {
  if (process.pid === 1 || process.platform === 'win32') return;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
