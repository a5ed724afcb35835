/**
 * `dreamgym serve --workers N`: N processes (node:cluster) serving one port, so a machine's cores
 * all step envs. The kernel hands each connection to a worker in turn; sessions live in the
 * worker that created them, whose index their ids encode, and a worker forwards requests for
 * another's sessions to it (see `worker-routing.ts`). A synthetic env's buffer is shared in
 * place: every worker writes its episodes back to the one SQLite (WAL, one writer at a time)
 * or PostgreSQL buffer. The primary serves no requests; it is the only writer of the record file
 * and of the curriculum's task pool, and it counts the session cap for the whole server: the
 * workers reach all three over IPC. Each worker runs with a heap cap (`--max-old-space-size`).
 */
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, DreamGymError } from '../core/errors.ts';
import type { Task, Trajectory } from '../core/types.ts';
import { TrajectoryWriter } from '../data/trajectory-file.ts';
import { DEFAULT_MAX_SESSIONS } from './app.ts';
import { type SessionCapacity, SlotLedger } from './capacity.ts';
import {
  openServedCurriculum,
  type ServedEnv,
  type ServedTaskFeed,
  type ServeEnvOptions,
  serveEnv,
} from './serve-env.ts';
import type { ServerStats } from './session.ts';

/** The environment variable that tells a forked process it is worker `index` of `count`. */
const WORKER_ENV = 'DREAMGYM_SERVE_WORKER';

/** What the primary tells a worker at fork. */
interface WorkerSettings {
  index: number;
  count: number;
  sockets: string[];
  /**
   * Send finished episodes to the primary (it writes the record file or runs the curriculum),
   * answering their final steps once it has.
   */
  episodes: boolean;
  /** Ask the primary for the tasks of resets that name none (its curriculum's). */
  tasks: boolean;
}

/** Worker → primary. */
type WorkerMessage =
  | { type: 'listening'; url: string; port: number }
  | { type: 'failed'; message: string; config: boolean }
  | { type: 'episode'; requestId: number; trajectory: Trajectory }
  | { type: 'task-request'; requestId: number }
  | { type: 'slot-request'; requestId: number }
  | { type: 'slot-release' }
  | { type: 'stopped'; stats: ServerStats };

/** Primary → worker. */
type PrimaryMessage =
  | { type: 'stop'; drainMs?: number }
  | { type: 'task'; requestId: number; task?: Task; error?: string }
  | { type: 'episode-taken'; requestId: number }
  | { type: 'slot'; requestId: number; granted: boolean };

/**
 * Each worker's heap cap by default, in MB (Node's `--max-old-space-size`). Without one, V8 lets
 * a busy worker's heap grow towards a quarter of the machine's memory before it collects in
 * earnest (two workers reached 1.5 GB RSS in a minute of load); the envs served keep far less.
 */
export const DEFAULT_WORKER_HEAP_MB = 1024;

/** How the workers run. */
export interface ServeWorkersOptions {
  /**
   * Each worker's heap cap in MB, passed to it as `--max-old-space-size`; 0 or undefined leaves
   * Node's own (or the one `NODE_OPTIONS` sets).
   */
  heapMb?: number;
}

/** True in a process the `serve --workers` primary forked. */
export function isServeWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] !== undefined;
}

/** How the workers ended. */
export interface WorkersSummary {
  /** The workers' counts summed; a worker that died reported none. */
  stats: ServerStats;
  /** Workers that did not exit cleanly (a failed close, a crash), each in a sentence. */
  failures: string[];
}

export interface ServedWorkers {
  url: string;
  port: number;
  workers: number;
  /**
   * Resolves with what happened when a worker exits before {@link close} was called (it crashed
   * or was killed): its sessions are gone, and the caller should stop the server.
   */
  workerDied: Promise<string>;
  /** Episodes written to the record file so far. */
  recorded(): number;
  /**
   * Has every worker close its sessions, listener and buffer and waits for them to exit; then
   * finishes the record file and closes the task pool. With `drainMs`, each worker first drains
   * for up to that long (see `ServedEnv.drain`).
   */
  close(drainMs?: number): Promise<WorkersSummary>;
  /** Kills the workers at once: what they had not written yet is lost. */
  kill(): void;
}

/**
 * Forks `count` workers that each serve `options` on its one port; resolves when all listen.
 * A worker that fails to start stops the others, and the error is the worker's.
 */
export async function serveWorkers(
  options: ServeEnvOptions,
  count: number,
  { heapMb }: ServeWorkersOptions = {},
): Promise<ServedWorkers> {
  if (!Number.isInteger(count) || count < 1) {
    throw new ConfigError(`--workers must be an integer of at least 1, got ${count}.`);
  }
  if (heapMb !== undefined && !(Number.isInteger(heapMb) && heapMb >= 0)) {
    throw new ConfigError(
      `a worker's heap cap is a whole number of MB (0 for none), got ${heapMb}.`,
    );
  }
  const writer = options.record
    ? await TrajectoryWriter.open(options.record, { inPlace: true })
    : undefined;
  let curriculum: ServedTaskFeed | undefined;
  try {
    curriculum =
      options.curriculum &&
      (await openServedCurriculum({ ...options, curriculum: options.curriculum }));
  } catch (error) {
    await writer?.abort();
    throw error;
  }
  const warn = options.warn ?? ((message: string) => console.error(message));
  // Named by the primary's pid: whose sockets these are, if anything is ever left behind.
  const dir = mkdtempSync(join(tmpdir(), `dreamgym-serve-${process.pid}-`));
  const sockets = Array.from({ length: count }, (_, i) => join(dir, `w${i}.sock`));
  const cleanUp = async (finished: boolean) => {
    await (finished ? writer?.close() : writer?.abort());
    await curriculum?.pool.close();
    rmSync(dir, { recursive: true, force: true });
  };

  let stopping = false;
  let reportDeath = (_message: string) => {};
  const workerDied = new Promise<string>((resolve) => {
    reportDeath = resolve;
  });
  const onEpisode = async (trajectory: Trajectory) => {
    try {
      await curriculum?.feed.record(trajectory);
    } catch (error) {
      warn(`episode ${trajectory.id} is missing from the curriculum: ${(error as Error).message}`);
    }
    try {
      await writer?.write(trajectory);
    } catch (error) {
      warn(`episode ${trajectory.id} is missing from the record: ${(error as Error).message}`);
    }
  };

  // The session cap is the server's: every worker takes its slots here.
  const slots = new SlotLedger(options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  cluster.setupPrimary({
    execArgv: heapMb ? [...process.execArgv, `--max-old-space-size=${heapMb}`] : process.execArgv,
  });
  const started = Array.from({ length: count }, (_, index) => {
    const settings: WorkerSettings = {
      index,
      count,
      sockets,
      episodes: writer !== undefined || curriculum !== undefined,
      tasks: curriculum !== undefined,
    };
    const worker = cluster.fork({ [WORKER_ENV]: JSON.stringify(settings) });
    let stats: ServerStats | undefined;
    let listening = false;
    const ready = new Promise<{ url: string; port: number }>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'listening') {
          listening = true;
          resolve(message);
        } else if (message.type === 'failed') {
          reject(message.config ? new ConfigError(message.message) : new Error(message.message));
        } else if (message.type === 'episode') {
          void onEpisode(message.trajectory).finally(() => {
            if (worker.isConnected()) {
              worker.send({
                type: 'episode-taken',
                requestId: message.requestId,
              } satisfies PrimaryMessage);
            }
          });
        } else if (message.type === 'task-request') {
          answerTask(worker, message.requestId, curriculum);
        } else if (message.type === 'slot-request') {
          const granted = slots.take(index);
          if (worker.isConnected()) {
            worker.send({ type: 'slot', requestId: message.requestId, granted });
          } else if (granted) slots.give(index);
        } else if (message.type === 'slot-release') {
          slots.give(index);
        } else if (message.type === 'stopped') {
          stats = message.stats;
        }
      });
      worker.on('exit', (code, signal) => {
        slots.drop(index);
        const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
        reject(new Error(`server worker ${index} ${how} while starting.`));
        if (listening && !stopping) {
          reportDeath(
            `server worker ${index} (pid ${worker.process.pid}) ${how}; its sessions are lost.`,
          );
        }
      });
    });
    // Its last messages are read once the IPC channel closes, which may come after the exit.
    const exited = Promise.all([once(worker, 'exit'), once(worker, 'disconnect')]).then(
      ([[code, signal]]) => ({
        stats,
        ...((code !== 0 || stats === undefined) && {
          failure: `server worker ${index} ${signal ? `was killed by ${signal}` : `exited with code ${code}`}${stats ? '' : ', its counts unknown'}.`,
        }),
      }),
    );
    return { worker, ready, exited, listening: () => listening };
  });

  const stopAll = async (finished: boolean, drainMs?: number): Promise<WorkersSummary> => {
    stopping = true;
    for (const { worker, listening } of started) {
      // One still starting may not listen for messages yet; it has served nothing to lose.
      if (!listening()) worker.process.kill('SIGTERM');
      else if (worker.isConnected()) {
        worker.send({ type: 'stop', ...(drainMs && { drainMs }) } satisfies PrimaryMessage);
      }
    }
    const ends = await Promise.all(started.map((s) => s.exited));
    await cleanUp(finished);
    return {
      stats: sumStats(ends.map((end) => end.stats)),
      failures: ends.flatMap((end) => (end.failure ? [end.failure] : [])),
    };
  };

  let first: { url: string; port: number };
  try {
    [first] = (await Promise.all(started.map((s) => s.ready))) as [{ url: string; port: number }];
  } catch (error) {
    await stopAll(false);
    throw error;
  }
  return {
    url: first.url,
    port: first.port,
    workers: count,
    workerDied,
    recorded: () => writer?.count ?? 0,
    close: (drainMs) => stopAll(true, drainMs),
    kill: () => {
      for (const { worker } of started) worker.process.kill('SIGKILL');
    },
  };
}

/** Hands the curriculum's next task to a worker's reset. */
function answerTask(worker: Worker, requestId: number, curriculum: ServedTaskFeed | undefined) {
  const reply = (answer: Omit<Extract<PrimaryMessage, { type: 'task' }>, 'type' | 'requestId'>) => {
    if (worker.isConnected()) {
      worker.send({ type: 'task', requestId, ...answer } satisfies PrimaryMessage);
    }
  };
  if (!curriculum) {
    reply({ error: 'the primary runs no curriculum.' });
    return;
  }
  curriculum.feed.next().then(
    (task) => reply({ task }),
    (error: Error) => reply({ error: error.message }),
  );
}

/** The workers' counts summed; a worker that died reported none. */
function sumStats(all: ReadonlyArray<ServerStats | undefined>): ServerStats {
  const sum: ServerStats = {
    sessionsOpened: 0,
    episodesStarted: 0,
    episodesFinished: 0,
    episodesAbandoned: 0,
    steps: 0,
  };
  for (const stats of all) {
    if (!stats) continue;
    sum.sessionsOpened += stats.sessionsOpened;
    sum.episodesStarted += stats.episodesStarted;
    sum.episodesFinished += stats.episodesFinished;
    sum.episodesAbandoned += stats.episodesAbandoned;
    sum.steps += stats.steps;
  }
  return sum;
}

/**
 * A worker's life: serves `options` with its share of session ids until the primary says stop
 * (or goes away, or a signal comes), then closes its sessions, listener and buffer, sends the
 * primary its counts and exits. The record file and the curriculum are the primary's: episodes
 * go there, and resets that name no task ask it for one.
 */
export async function runServeWorker(options: ServeEnvOptions): Promise<void> {
  const settings = JSON.parse(process.env[WORKER_ENV] as string) as WorkerSettings;
  const send = (message: WorkerMessage) =>
    new Promise<void>((resolve) => {
      if (!process.connected) resolve();
      else process.send?.(message, undefined, {}, () => resolve());
    });
  // A primary killed outright never tells its workers to stop: cluster ends them at once on the
  // disconnect, and only an exit hook can still take the socket (and the emptied folder) away.
  const socket = settings.sockets[settings.index] as string;
  process.once('exit', () => {
    rmSync(socket, { force: true });
    try {
      rmdirSync(dirname(socket));
    } catch {
      // Another worker's socket is still there; the last one out removes the folder.
    }
  });
  const asked = new Map<number, { resolve: (task: Task) => void; reject: (e: Error) => void }>();
  const slotAnswers = new Map<number, (granted: boolean) => void>();
  const episodesSent = new Map<number, () => void>();
  let nextRequest = 0;
  const taskProvider = () =>
    new Promise<Task>((resolve, reject) => {
      const requestId = nextRequest++;
      asked.set(requestId, { resolve, reject });
      void send({ type: 'task-request', requestId });
    });
  const capacity: SessionCapacity = {
    max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    acquire: () =>
      new Promise<boolean>((resolve) => {
        if (!process.connected) {
          resolve(false);
          return;
        }
        const requestId = nextRequest++;
        slotAnswers.set(requestId, resolve);
        void send({ type: 'slot-request', requestId });
      }),
    release: () => void send({ type: 'slot-release' }),
  };
  let stop = () => {};
  let drainMs = 0;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on('message', (message: PrimaryMessage) => {
    if (message.type === 'stop') {
      drainMs = message.drainMs ?? 0;
      stop();
    } else if (message.type === 'slot') {
      slotAnswers.get(message.requestId)?.(message.granted);
      slotAnswers.delete(message.requestId);
    } else if (message.type === 'episode-taken') {
      episodesSent.get(message.requestId)?.();
      episodesSent.delete(message.requestId);
    } else if (message.type === 'task') {
      const waiting = asked.get(message.requestId);
      asked.delete(message.requestId);
      if (message.task) waiting?.resolve(message.task);
      else waiting?.reject(new Error(message.error ?? 'no task from the primary'));
    }
  });
  process.on('disconnect', () => {
    // No answer will come: the final steps waiting for the primary go out (it is gone).
    for (const answered of episodesSent.values()) answered();
    episodesSent.clear();
    stop();
  });
  // A terminal's Ctrl-C reaches every worker as well as the primary, whose stop message may come
  // first: only a second signal means "now", as for a single server.
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(130);
    stop();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

  const { record: _primarys, curriculum: _alsoPrimarys, ...served } = options;
  let server: ServedEnv;
  try {
    server = await serveEnv({
      ...served,
      workers: { index: settings.index, count: settings.count, sockets: settings.sockets },
      capacity,
      ...(settings.episodes && {
        // The final step is answered once the primary has the episode in the record file.
        onEpisode: (trajectory: Trajectory) =>
          new Promise<void>((resolve) => {
            if (!process.connected) {
              resolve();
              return;
            }
            const requestId = nextRequest++;
            episodesSent.set(requestId, resolve);
            void send({ type: 'episode', requestId, trajectory });
          }),
      }),
      ...(settings.tasks && { taskProvider }),
    });
  } catch (error) {
    await send({
      type: 'failed',
      message: (error as Error).message,
      config: error instanceof DreamGymError,
    });
    process.exit(1);
  }
  await send({ type: 'listening', url: server.url, port: server.port });
  await stopped;
  let closed = true;
  try {
    if (drainMs > 0) await server.drain(drainMs);
    await server.close();
  } catch (error) {
    closed = false;
    console.error(`server worker ${settings.index}: closing failed: ${(error as Error).stack}`);
  }
  await send({ type: 'stopped', stats: server.server.sessions.stats });
  process.exit(closed ? 0 : 1);
}
