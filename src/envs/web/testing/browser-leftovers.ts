import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh directory to give a child process as its `TMPDIR`: Playwright puts the browser's
 * profile (`playwright_chromiumdev_profile-…`) under it, so a browser the child left running
 * still names the directory on its command line.
 */
export function browserTmpDir(): string {
  return mkdtempSync(join(tmpdir(), 'dreamgym-browser-'));
}

/**
 * What a child given `dir` as its `TMPDIR` left of its browser: the command lines of processes
 * still running under it, and the profiles Playwright did not remove (it removes them when it
 * closes the browser). Both empty when the child closed its browser.
 */
export function browserLeftovers(dir: string): { processes: string[]; profiles: string[] } {
  const running = execFileSync('ps', ['-e', '-o', 'args='], { encoding: 'utf8' });
  return {
    processes: running.split('\n').filter((line) => line.includes(dir)),
    profiles: readdirSync(dir).filter((name) => name.startsWith('playwright')),
  };
}
