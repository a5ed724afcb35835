import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const script = join(import.meta.dirname, 'ws-client-process.ts');

/** One event the client process printed. */
export type WsEvent =
  | { open: true }
  | { message: { type: string; data: Record<string, unknown> } }
  | { close: { code: number; reason: string } }
  | { error: string };

/**
 * Drives {@link script} (Node's own WebSocket client, in a child process) from a test: `send`
 * writes a message, `next` awaits the next event, each wait bounded so a test cannot hang.
 */
export class WsChild {
  private readonly events: WsEvent[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly child: ChildProcess;

  constructor(url: string, token?: string) {
    this.child = spawn(
      process.execPath,
      [
        '--experimental-websocket',
        '--no-warnings',
        '--import',
        'tsx',
        script,
        url,
        ...(token ? [token] : []),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.events.push(JSON.parse(line) as WsEvent);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.on('exit', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(message: unknown): void {
    this.child.stdin?.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** Asks the client to close the connection normally. */
  close(): void {
    this.child.stdin?.write(':close\n');
  }

  /** The next event, or an error after `timeoutMs`. */
  async next(timeoutMs = 15_000): Promise<WsEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.events.shift();
      if (event) return event;
      if (this.child.exitCode !== null || this.child.signalCode !== null || Date.now() > deadline) {
        throw new Error(`the WebSocket client sent no further event (exit ${this.child.exitCode})`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The data of the next event, which must be a message. */
  async message(): Promise<{ type: string; data: Record<string, unknown> }> {
    const event = await this.next();
    if (!('message' in event)) throw new Error(`expected a message, got ${JSON.stringify(event)}`);
    return event.message;
  }

  /** Ends the client process at once, as a crashed trainer would: no close frame. */
  kill(): void {
    this.child.kill('SIGKILL');
  }
}
