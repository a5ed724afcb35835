import { Console } from 'node:console';
import { Readable, Writable } from 'node:stream';
import { buildProgram } from '../program.ts';
import { runProgram, withSubcommands } from '../run-program.ts';
import type { CliRun } from './run-cli.ts';

/** How {@link runCliInProcess} sets up the call, as a child process would be set up. */
export interface InProcessOptions {
  /** Added to `process.env` for the call only, as to a child's environment. */
  env?: NodeJS.ProcessEnv;
  /** What the command reads on stdin; without it stdin is empty and closed. */
  stdin?: string;
  /** The working directory of the call; restored after it. */
  cwd?: string;
}

/**
 * A run in this process: what a child would have given, plus what the command left holding the
 * event loop (`process.getActiveResourcesInfo()` types, e.g. `TCPServerWrap`). A real process
 * would not have exited while anything is left open, so a test about a command that should close
 * all it opens asserts `leftOpen` is empty.
 */
export interface InProcessRun extends CliRun {
  leftOpen: string[];
}

/**
 * Runs the `dreamgym` CLI inside the test's process: the same `{ code, stdout, stderr }` as
 * {@link runCli}'s child for success and for each error path, without paying a process's start-up
 * (tsx and every module the CLI imports) per call. For tests about behaviour: options, messages,
 * outputs. Everything the command prints during the call (console, `process.stdout.write`,
 * Commander's output) is captured; stdout and stderr are not terminals, as in a child with pipes.
 *
 * Calls run one at a time, since what they change is process-wide: `process.env`, the working
 * directory, `process.exitCode` and signal and exit listeners are put back after each call. Not
 * isolated, unlike a child: module state (an env module registered by `--env ./my-env.ts` stays
 * registered), output of processes the command spawns with inherited stdio, and `process.exit`
 * (vitest turns it into an error). Tests about those, or about the process itself (signals, pipes,
 * exit of a real process), spawn with {@link runCli}.
 */
export function runCliInProcess(
  args: readonly string[],
  options: InProcessOptions = {},
): Promise<InProcessRun> {
  const run = queue.then(() => runIsolated(args, options));
  queue = run.catch(() => undefined);
  return run;
}

let queue: Promise<unknown> = Promise.resolve();

/** The process-wide events a command may listen to; listeners it adds are removed after it. */
const PROCESS_EVENTS: readonly string[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'beforeExit'];

async function runIsolated(args: readonly string[], options: InProcessOptions) {
  const out = new Capture();
  const err = new Capture();
  const openBefore = process.getActiveResourcesInfo();
  const exitCodeBefore = process.exitCode;
  const restores = [
    swapEnv(options.env ?? {}),
    swapCwd(options.cwd),
    keepListeners(),
    swapProperty(globalThis, 'console', new Console({ stdout: out, stderr: err })),
    swapProperty(process.stdout, 'write', out.write.bind(out)),
    swapProperty(process.stderr, 'write', err.write.bind(err)),
    swapProperty(process.stdout, 'isTTY', false),
    swapProperty(process.stderr, 'isTTY', false),
    swapProperty(process, 'stdin', Readable.from(options.stdin ? [options.stdin] : [])),
  ];
  try {
    const program = buildProgram();
    for (const command of withSubcommands(program)) {
      command.configureOutput({
        writeOut: (text) => out.write(text),
        writeErr: (text) => err.write(text),
      });
    }
    const code = await runProgram(program, args);
    // As `main.ts`: a successful run ends with whatever exit code the process was left with.
    const exitCode = code === 0 ? Number(process.exitCode ?? 0) : code;
    return {
      code: exitCode,
      stdout: out.text(),
      stderr: err.text(),
      leftOpen: await leftOpen(openBefore),
    };
  } finally {
    process.exitCode = exitCodeBefore;
    for (const restore of restores.reverse()) restore();
  }
}

/** A stream that keeps what is written to it, synchronously, as bytes. */
class Capture extends Writable {
  private readonly chunks: Buffer[] = [];

  override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const done = typeof encoding === 'function' ? encoding : callback;
    // The CLI writes text (UTF-8) or bytes; a string in another encoding is not something it does.
    this.chunks.push(
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array),
    );
    if (typeof done === 'function') queueMicrotask(() => done());
    return true;
  }

  /** Everything written, decoded as UTF-8 as a child's pipe is. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Sets `target[key]` to `value` as an own property; the returned function puts back what was. */
function swapProperty(target: object, key: PropertyKey, value: unknown): () => void {
  const before = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, configurable: true, writable: true });
  return () => {
    if (before) Object.defineProperty(target, key, before);
    else Reflect.deleteProperty(target, key);
  };
}

/** Adds `extra` to `process.env` (undefined deletes); restoring undoes every change since. */
function swapEnv(extra: NodeJS.ProcessEnv): () => void {
  const before = { ...process.env };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const name of Object.keys(process.env)) {
      if (!Object.hasOwn(before, name)) delete process.env[name];
    }
    Object.assign(process.env, before);
  };
}

function swapCwd(cwd: string | undefined): () => void {
  const before = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  return () => {
    if (process.cwd() !== before) process.chdir(before);
  };
}

/** Restoring removes the signal and exit listeners added since: they belonged to the command. */
function keepListeners(): () => void {
  // The typed overloads of `process.listeners` take one event kind at a time.
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(PROCESS_EVENTS.map((event) => [event, emitter.listeners(event)]));
  return () => {
    for (const [event, listeners] of before) {
      for (const listener of emitter.listeners(event)) {
        if (!listeners.includes(listener)) emitter.removeListener(event, listener as () => void);
      }
    }
  };
}

/**
 * The resources holding the event loop now that were not before the call, once closes under way
 * have had a moment to finish: what would have kept a child from exiting.
 */
async function leftOpen(before: readonly string[]): Promise<string[]> {
  const deadline = Date.now() + 500;
  for (;;) {
    const left = [...process.getActiveResourcesInfo()];
    for (const type of before) {
      const i = left.indexOf(type);
      if (i >= 0) left.splice(i, 1);
    }
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
