import { ConfigError } from '../core/errors.ts';
import type { Task, Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import type { TaskGenerator } from '../curriculum/generators/generator.ts';
import { LlmTaskGenerator } from '../curriculum/generators/llm-generator.ts';
import { offlineMutators } from '../curriculum/generators/offline-mutators.ts';
import { TaskPool } from '../curriculum/open-task-pool.ts';
import { type CurriculumMode, checkMode } from '../curriculum/selection.ts';
import { TrajectoryWriter } from '../data/trajectory-file.ts';
import type { EnvOptions, TaskSource, TaskSplit } from '../envs/env.ts';
import { envEntry } from '../envs/registry.ts';
import type { ExperienceChoice } from '../experience/llm-free.ts';
import {
  isSyntheticRef,
  type SyntheticEntry,
  syntheticEntry,
} from '../experience/synthetic-entry.ts';
import type { LlmClient } from '../llm/client.ts';
import { makeLlmClient } from '../pipeline/experience-model.ts';
import { createEnvServer, type EnvServer } from './app.ts';
import { checkToken } from './auth.ts';
import type { SessionCapacity } from './capacity.ts';
import { ServerHealth } from './health.ts';
import { checkInstance, processSlot } from './instance-slot.ts';
import { type ListeningServer, listen } from './listen.ts';
import type { IdSlot } from './sessions.ts';
import { TaskFeed } from './task-feed.ts';
import type { WorkerRouting } from './worker-routing.ts';

export interface ServeEnvOptions {
  /** A registry name: `webshop`, `household`, `agentgym:webshop@URL`, or `synthetic:webshop` (with `db`). */
  env: string;
  host?: string;
  port?: number;
  maxSessions?: number;
  /** Seconds without requests after which a session is closed; 0 never. */
  idleTimeoutSeconds?: number;
  /**
   * Longest action passed to the env, in characters; a longer one is an invalid step, recorded
   * clipped. Default 2,000.
   */
  maxActionChars?: number;
  token?: string;
  /** Split whose task indices clients name. Default `train`. */
  split?: TaskSplit;
  maxSteps?: number;
  catalogSize?: number;
  catalogSeed?: number;
  /** A synthetic env's database, passed on to the registry. */
  db?: string;
  /**
   * JSONL file (our trajectory format) that each episode is appended to as it ends, before the
   * step that ended it is answered: a crash loses none a client saw finish. Trajectories already
   * in the file are kept (a restarted server continues it).
   */
  record?: string;
  /**
   * A synthetic env's finished episodes go back to its buffer as `synthetic`, where its
   * experience model learns from them. Default true; false keeps the buffer as it was.
   */
  writeBack?: boolean;
  /**
   * The step that ends an episode is answered only once the episode is committed to the buffer,
   * so a crash loses no episode a client saw finish. Default false: the answer goes out once the
   * episode is queued, and up to 500 queued episodes (`DEFAULT_MAX_UNWRITTEN`) are lost if the
   * process dies; past 500 the final steps wait for the buffer (back-pressure).
   */
  durable?: boolean;
  /**
   * Resets that name no task take theirs from DreamGym's curriculum, in groups (see
   * {@link ServedCurriculum}); without it the env draws a task from a seed. Its variations are
   * written by the LLM task generator when `llm` is given (sharing the experience model's
   * client), else by the offline mutators.
   */
  curriculum?: ServedCurriculum;
  /**
   * A synthetic env's experience model: the reasoning LLM (an OpenAI-compatible server, or a
   * local GGUF file) with its prompt's history window; default the LLM-free model.
   */
  llm?: ServedLlm;
  /** A synthetic env's LLM-free experience model when no `llm` is given; default `auto`. */
  experience?: ExperienceChoice;
  /** A synthetic env's demonstrations retrieved per step. Default 4. */
  k?: number;
  /**
   * Share of a synthetic env's demonstrations that are real; the rest are the synthetic
   * transitions written back so far (the buffer co-evolving with the trainer). Default 1.
   */
  realShare?: number;
  /**
   * What happens to an episode the client leaves unfinished (resets mid-episode, closes the
   * session, or goes quiet until it is reaped): it is always counted in `/metrics`
   * (`dreamgym_episodes_total{end="abandoned"}`); `record` (default true) writes it to the record
   * file and back to the buffer like a finished one, its last step marked `truncatedBy:
   * 'abandoned'`; `curriculum` files it as a failure (reward 0, the default) or drops it.
   */
  abandoned?: AbandonedEpisodes;
  /**
   * Also told of every finished episode (after the record file and the buffer), and of each
   * abandoned one that is recorded: how a `--workers` worker hands its episodes to the primary.
   */
  onEpisode?: (trajectory: Trajectory) => void | Promise<void>;
  /**
   * Picks the task of a reset that names none, instead of `curriculum` (a `--workers` worker
   * asks the primary, which runs the one curriculum).
   */
  taskProvider?: () => Promise<Task>;
  /** This server is one worker of several on one port (see {@link WorkerRouting}). */
  workers?: WorkerRouting;
  /**
   * This server is instance `index` of `count` behind one load balancer (`--instance I/N`): its
   * session ids are `index` mod `count`, by which the balancer routes (see `instance-slot.ts`).
   */
  instance?: IdSlot;
  /**
   * Where `maxSessions` is counted; default in this server. A `--workers` worker takes its slots
   * from the primary, so the cap is the whole server's.
   */
  capacity?: SessionCapacity;
  warn?: (message: string) => void;
}

/** What a server does with episodes its clients leave unfinished (see `ServeEnvOptions.abandoned`). */
export interface AbandonedEpisodes {
  /** Write them to the record file and the buffer. Default true. */
  record?: boolean;
  /** `failure`: the curriculum files reward 0 for them (default); `drop`: it never sees them. */
  curriculum?: 'failure' | 'drop';
}

/** The LLM behind a served synthetic env's experience model. */
export interface ServedLlm {
  /** OpenAI-compatible base URL with /v1 (vLLM, SGLang, Ollama, a hosted API), with `model`. */
  url?: string;
  model?: string;
  apiKey?: string;
  /** A local GGUF file for the embedded llama.cpp backend, instead of `url` and `model`. */
  gguf?: string;
  /** Per request. Default 120 s. */
  timeoutMs?: number;
  /** Requests in flight at once. Default 16. */
  maxConcurrency?: number;
  /** Earlier steps of the episode shown with each prediction. Default the model's (4). */
  historyWindow?: number;
}

/** The curriculum behind a server's index-less resets. */
export interface ServedCurriculum {
  /** `variance` (DreamGym's), `random`, or `off` (uniform over the train tasks, in groups). */
  mode: CurriculumMode;
  /**
   * The task pool: a SQLite file, or a `postgres://` URL that every server instance shares (one
   * curriculum, GRPO groups spread over instances). Seed and generated tasks, the batches handed
   * out and their groups' rewards; a restart continues.
   */
  tasksPath: string;
  /** Consecutive index-less resets that get the same task (a trainer's GRPO group). Default 1. */
  groupSize?: number;
  /** Distinct tasks per curriculum iteration. Default 16. */
  batchTasks?: number;
  /** λ, the share of each iteration's tasks newly generated. Default the curriculum's (0.25). */
  generatedShare?: number;
}

export interface ServedEnv extends ListeningServer {
  server: EnvServer;
  /**
   * Takes no new session or episode, fails `/readyz`, and closes each session once its episode
   * has ended, for at most `timeoutMs` (see `ServerHealth.drain`); resolves to the sessions left
   * open, whose episodes {@link close} records as abandoned. SIGTERM's first half.
   */
  drain(timeoutMs: number): Promise<number>;
  /** Episodes written to the record file so far. */
  recorded(): number;
}

/**
 * `dreamgym serve` without the command line: the registry's env served on a port, finished
 * episodes written to `record` if given (and, for a synthetic env, back to its buffer). Closing
 * records the open episodes as abandoned at once, without waiting for calls under way (see
 * `SessionStore.closeAll`), then finishes the record file and the buffer's writes.
 */
export async function serveEnv(options: ServeEnvOptions): Promise<ServedEnv> {
  if (options.token !== undefined) checkToken(options.token);
  if (options.instance) checkInstance(options.instance);
  const envOptions = servedEnvOptions(options);
  if (options.curriculum && options.taskProvider) {
    throw new ConfigError('pass a curriculum or a task provider, not both.');
  }
  if (options.llm && !isSyntheticRef(options.env)) {
    throw new ConfigError(
      `an experience model serves synthetic envs only; ${options.env} is a real env: drop the LLM options or serve synthetic:FAMILY.`,
    );
  }
  const client = options.llm && (await servedLlmClient(options.llm));
  const synthetic = isSyntheticRef(options.env)
    ? await syntheticEntry(options.env, {
        ...envOptions,
        ...(options.warn && { warn: options.warn }),
        ...(client && {
          llm: {
            client,
            ...(options.llm?.historyWindow !== undefined && {
              historyWindow: options.llm.historyWindow,
            }),
          },
        }),
        ...(options.k !== undefined && { k: options.k }),
        ...(options.realShare !== undefined && { realShare: options.realShare }),
        ...(options.experience !== undefined && { experience: options.experience }),
        ...(options.durable && { durable: true }),
      })
    : undefined;
  const entry = synthetic ?? envEntry(options.env);
  let writer: TrajectoryWriter | undefined;
  try {
    writer = options.record
      ? await TrajectoryWriter.open(options.record, { inPlace: true })
      : undefined;
  } catch (error) {
    await synthetic?.close();
    throw error;
  }
  const writesBack = synthetic !== undefined && options.writeBack !== false;
  let curriculum: ServedTaskFeed | undefined;
  try {
    curriculum =
      options.curriculum &&
      (await servedCurriculum(
        options.curriculum,
        entry.tasks(envOptions),
        synthetic !== undefined,
        client ? new LlmTaskGenerator({ llm: client }) : offlineMutators,
      ));
  } catch (error) {
    await writer?.abort();
    await synthetic?.close();
    throw error;
  }
  // The step that ended the episode is answered once this resolves: after the record line is
  // written, and after the buffer took the episode (queued, or committed with `durable`).
  const onEpisode = async (trajectory: Trajectory) => {
    const stored = writesBack ? synthetic?.writeBack(trajectory) : undefined;
    try {
      await curriculum?.feed.record(trajectory);
      await writer?.write(trajectory);
      await options.onEpisode?.(trajectory);
    } finally {
      await stored;
    }
  };
  const { record: recordAbandoned = true, curriculum: abandonedToCurriculum = 'failure' } =
    checkAbandoned(options.abandoned);
  // Every rollout is an episode: one its client left unfinished is recorded like a finished one
  // (a trainer's group must arrive whole in the curriculum), unless told otherwise.
  const onAbandoned = async (trajectory: Trajectory) => {
    if (abandonedToCurriculum === 'failure') await curriculum?.feed.record(trajectory, 0);
    if (!recordAbandoned) return;
    const stored = writesBack ? synthetic?.writeBack(trajectory) : undefined;
    try {
      await writer?.write(trajectory);
      await options.onEpisode?.(trajectory);
    } finally {
      await stored;
    }
  };
  const taskProvider = curriculum ? () => curriculum.feed.next() : options.taskProvider;
  const pool = curriculum?.pool;
  const health = new ServerHealth({
    ...(options.instance && { instance: options.instance }),
    // A shared pool's database must answer: an instance without it hands out no tasks.
    ...(pool && { checks: { curriculum: () => pool.lastIteration() } }),
  });
  const routing = processSlot(options.instance, options.workers);
  const server = createEnvServer({
    name: options.env,
    description: entry.description,
    makeEnv: () => entry.make(envOptions),
    tasks: entry.tasks(envOptions),
    ...(options.split !== undefined && { split: options.split }),
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    ...(options.capacity && { capacity: options.capacity }),
    ...(options.maxActionChars !== undefined && { maxActionChars: options.maxActionChars }),
    ...(options.idleTimeoutSeconds !== undefined && {
      idleTimeoutMs: options.idleTimeoutSeconds * 1000,
    }),
    ...(options.token !== undefined && { token: options.token }),
    ...(options.warn && { warn: options.warn }),
    // Synthetic envs are named `synthetic:…`; their episodes must never pass for real ones.
    provenance: options.env.startsWith('synthetic:') ? 'synthetic' : 'real-online',
    ...((writer || writesBack || curriculum || options.onEpisode) && { onEpisode, onAbandoned }),
    ...(taskProvider && { taskProvider }),
    // A synthetic env starts from the buffer's real states too (`reset` with `from`).
    ...(synthetic && { branches: true }),
    ...(routing && { workers: routing }),
    health,
  });
  addMetrics(server, synthetic, client, curriculum?.pool);
  let listening: ListeningServer;
  try {
    listening = await listen(server, {
      ...(options.host !== undefined && { host: options.host }),
      ...(options.port !== undefined && { port: options.port }),
      ...(options.workers && { socketPath: options.workers.sockets[options.workers.index] }),
    });
  } catch (error) {
    await server.close();
    await writer?.abort();
    await synthetic?.close();
    await curriculum?.pool.close();
    throw error;
  }
  health.markReady();
  return {
    ...listening,
    server,
    drain: (timeoutMs) => health.drain(server.sessions, timeoutMs),
    recorded: () => writer?.count ?? 0,
    close: async () => {
      await listening.close();
      await writer?.close();
      await synthetic?.close();
      await curriculum?.pool.close();
    },
  };
}

function checkAbandoned(abandoned: AbandonedEpisodes = {}): AbandonedEpisodes {
  if (abandoned.curriculum !== undefined && !['failure', 'drop'].includes(abandoned.curriculum)) {
    throw new ConfigError(
      `abandoned episodes go to the curriculum as failure or drop, not "${abandoned.curriculum}".`,
    );
  }
  return abandoned;
}

/** The registry's env options of a served env. */
function servedEnvOptions(options: ServeEnvOptions): EnvOptions & { db?: string } {
  return {
    ...(options.split !== undefined && { split: options.split }),
    ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
    ...(options.catalogSize !== undefined && { catalogSize: options.catalogSize }),
    ...(options.catalogSeed !== undefined && { catalogSeed: options.catalogSeed }),
    ...(options.db !== undefined && { db: options.db }),
  };
}

/** A served curriculum: the feed that hands out its tasks, and the pool it keeps them in. */
export interface ServedTaskFeed {
  feed: TaskFeed;
  pool: TaskPool;
}

/**
 * The curriculum `serveEnv` would run for these options, opened without serving: the `--workers`
 * primary runs the one curriculum (the only writer of the task pool file, and one GRPO group
 * sequence however resets spread over workers) and hands its tasks to the workers. Its
 * variations come from the offline mutators: the primary holds no LLM client.
 */
export function openServedCurriculum(
  options: ServeEnvOptions & { curriculum: ServedCurriculum },
): Promise<ServedTaskFeed> {
  const synthetic = isSyntheticRef(options.env);
  const family = synthetic ? options.env.slice('synthetic:'.length) : options.env;
  const envOptions = servedEnvOptions(options);
  return servedCurriculum(
    options.curriculum,
    envEntry(family).tasks(envOptions),
    synthetic,
    offlineMutators,
  );
}

/**
 * The task pool at `tasksPath` with a curriculum over the source's train tasks (variations by
 * `generator`) behind a {@link TaskFeed}. A real env only gets tasks it can build.
 */
async function servedCurriculum(
  options: ServedCurriculum,
  source: TaskSource,
  synthetic: boolean,
  generator: TaskGenerator,
): Promise<ServedTaskFeed> {
  const pool = await TaskPool.open({ location: options.tasksPath });
  try {
    const schedule = new Curriculum(
      { pool, seedTasks: source.tasks('train'), generator },
      {
        mode: checkMode(options.mode),
        realizableOnly: !synthetic,
        ...(options.generatedShare !== undefined && { generatedShare: options.generatedShare }),
      },
    );
    const feed = new TaskFeed({
      schedule,
      pool,
      ...(options.groupSize !== undefined && { groupSize: options.groupSize }),
      ...(options.batchTasks !== undefined && { batchTasks: options.batchTasks }),
    });
    return { feed, pool };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

/** The LLM client of a served experience model, with the serving defaults. */
function servedLlmClient(llm: ServedLlm): Promise<LlmClient> {
  if (!llm.gguf && !(llm.url && llm.model)) {
    throw new ConfigError(
      'the LLM experience model needs --llm-url and --llm-model (an OpenAI-compatible server), or --gguf FILE.',
    );
  }
  const { historyWindow: _promptSetting, ...connection } = llm;
  return makeLlmClient({
    ...connection,
    timeoutMs: llm.timeoutMs ?? 120_000,
    maxConcurrency: llm.maxConcurrency ?? 16,
  });
}

/** What `GET /metrics` adds for a synthetic env: its buffer, its LLM and its curriculum. */
function addMetrics(
  server: EnvServer,
  synthetic: SyntheticEntry | undefined,
  llm: LlmClient | undefined,
  pool: TaskPool | undefined,
): void {
  const m = server.metrics;
  if (synthetic) {
    m.gauge(
      'dreamgym_buffer_transitions',
      "Transitions of the served family in the synthetic env's buffer, by provenance.",
      () => synthetic.transitions(),
      'provenance',
    );
    m.gauge(
      'dreamgym_writeback_pending',
      'Finished episodes not yet written to the buffer.',
      () => synthetic.writeBackQueue().pending,
    );
    m.gauge(
      'dreamgym_writeback_waiting',
      'Final steps whose answer waits for the buffer (back-pressure, or --durable).',
      () => synthetic.writeBackQueue().waiting,
    );
  }
  if (llm) {
    const stats = () => llm.stats();
    m.gauge('dreamgym_llm_calls', 'Experience-model LLM calls so far.', () => stats().calls);
    m.gauge('dreamgym_llm_retries', 'LLM requests sent again.', () => stats().retries);
    m.gauge('dreamgym_llm_failures', 'LLM calls that ended in an error.', () => stats().failures);
    m.gauge(
      'dreamgym_llm_tokens',
      'LLM tokens so far, by kind.',
      () => ({ prompt: stats().promptTokens, completion: stats().completionTokens }),
      'kind',
    );
    m.gauge(
      'dreamgym_llm_latency_seconds',
      'Latency of successful LLM calls, by quantile.',
      () => {
        const { p50, p90, p99 } = stats().latencyMs;
        return { '0.5': p50 / 1000, '0.9': p90 / 1000, '0.99': p99 / 1000 };
      },
      'quantile',
    );
  }
  if (pool) {
    const last = async () => (await pool.iterationStats()).at(-1);
    m.gauge(
      'dreamgym_curriculum_informative_share',
      "Share of the last curriculum iteration's tasks solved sometimes but not always.",
      async () => (await last())?.informativeShare ?? 0,
    );
    m.gauge(
      'dreamgym_curriculum_mean_variance',
      "Mean reward variance of the last curriculum iteration's groups.",
      async () => (await last())?.meanVariance ?? 0,
    );
    m.gauge('dreamgym_curriculum_pool_size', 'Tasks in the curriculum pool.', async () => {
      await pool.refresh();
      return pool.size;
    });
  }
}
