import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSharedTestSite, testSiteEnv } from '../testing/fixtures.ts';
import { testSiteTasks } from '../testing/test-site-tasks.ts';
import { sharedBrowserPid } from './shared-browser.ts';

const child = fileURLToPath(new URL('../testing/open-env-child.ts', import.meta.url));

/** Processes whose process group is `pgid` (Chromium leads its own group: all its children). */
function processGroup(pgid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,pgid='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid as number);
}

/** Starts the child and resolves with its browser's pid once it printed it. */
function startChild(
  args: string[],
): Promise<{ proc: ChildProcess; pid: number; output: () => string }> {
  // Plain node with tsx's loader, not the tsx CLI: the CLI relays signals and exits for the child,
  // which would hide a missing handler of ours (the compiled bin runs under plain node).
  const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /BROWSER_PID (\d+)/.exec(output);
      if (match) resolve({ proc, pid: Number(match[1]), output: () => output });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', (data: Buffer) => {
      output += data.toString();
    });
    proc.once('exit', (code) => reject(new Error(`child exited (${code}) early:\n${output}`)));
  });
}

const exited = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve(proc.exitCode);
    else proc.once('exit', (code) => resolve(code));
  });

/** Waits up to `ms` for the browser's process group to be gone. */
async function goneWithin(pgid: number, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processGroup(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = processGroup(pgid);
  }
  return left;
}

describe('no browser process is left behind', () => {
  it('when close() returns: every process of the browser has exited and been reaped', async () => {
    const site = await startSharedTestSite();
    try {
      const env = testSiteEnv(site);
      await env.reset({ task: testSiteTasks().tasks('test')[0] });
      const pid = await sharedBrowserPid();
      expect(processGroup(pid as number)).toContain(pid);
      await env.close();
      // Chromium's zygotes outlive its main process; orphaned, they wait as zombies until init
      // reaps them, which here took up to 2 s after a command had exited.
      expect(processGroup(pid as number)).toEqual([]);
    } finally {
      await site.close();
    }
  }, 60_000);

  it('after close()', async () => {
    const { proc, pid, output } = await startChild(['close']);
    try {
      expect(await exited(proc), output()).toBe(0);
      expect(output()).toContain('CLOSED');
      expect(await goneWithin(pid, 5000)).toEqual([]);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 60_000);

  it('after SIGINT (Ctrl-C) of a process with an open env', async () => {
    const { proc, pid } = await startChild([]);
    try {
      expect(processGroup(pid)).toContain(pid);
      proc.kill('SIGINT');
      expect(await exited(proc)).toBe(130);
      expect(await goneWithin(pid, 5000)).toEqual([]);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 60_000);

  it('after the process dies of an uncaught error (a failing test) with an env open', async () => {
    const { proc, pid } = await startChild(['throw']);
    try {
      expect(await exited(proc)).toBe(1);
      expect(await goneWithin(pid, 5000)).toEqual([]);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 60_000);

  it('after SIGTERM too', async () => {
    const { proc, pid } = await startChild([]);
    try {
      proc.kill('SIGTERM');
      expect(await exited(proc)).toBe(143);
      expect(await goneWithin(pid, 5000)).toEqual([]);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 60_000);
});
