import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const bin = join(import.meta.dirname, '../../../scripts/dreamgym-dev.js');

/** A `dreamgym serve` child process started by {@link ServeChildren.start}. */
export interface ServeChild {
  /** The HTTP URL from its banner. */
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  process: ChildProcess;
}

/**
 * Starts `dreamgym serve` child processes for tests and kills the last one with `kill()` (call it
 * in `afterEach`, so a failing test leaves no server behind).
 */
export class ServeChildren {
  private child: ChildProcess | undefined;

  /** Starts `dreamgym serve ARGS` and waits up to `waitMs` for its banner. */
  async start(args: string[], waitMs = 40_000): Promise<ServeChild> {
    const child = spawn(process.execPath, [bin, 'serve', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      out += chunk;
    });
    for (let waited = 0; !/Ctrl-C to stop/.test(out); waited += 50) {
      if (child.exitCode !== null || waited > waitMs)
        throw new Error(`serve did not start: ${out}`);
      await sleep(50);
    }
    const url = /serving .* at (http:\/\/\S+)/.exec(out)?.[1] as string;
    return { url, output: () => out, process: child };
  }

  /** Kills the server started last, if it still runs. */
  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }
}
