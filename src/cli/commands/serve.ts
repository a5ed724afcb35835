import { once } from 'node:events';
import type { Command } from 'commander';
import { DEFAULT_MAX_ACTION_CHARS } from '../../core/action-limit.ts';
import { ConfigError } from '../../core/errors.ts';
import { checkMode } from '../../curriculum/selection.ts';
import { EXPERIENCE_CHOICES, type ExperienceChoice } from '../../experience/llm-free.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS } from '../../server/app.ts';
import { checkToken } from '../../server/auth.ts';
import {
  DEFAULT_WORKER_HEAP_MB,
  isServeWorker,
  runServeWorker,
  serveWorkers,
  type WorkersSummary,
} from '../../server/cluster.ts';
import { parseInstance } from '../../server/instance-slot.ts';
import { DEFAULT_PORT } from '../../server/listen.ts';
import {
  type ServedEnv,
  type ServedLlm,
  type ServeEnvOptions,
  serveEnv,
} from '../../server/serve-env.ts';
import { CliExit } from '../cli-exit.ts';
import {
  addSiteOption,
  EXPERIENCE_HELP,
  intOption,
  probabilityOption,
  splitOption,
} from '../options.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * How long closing may take after the drain (recording the open episodes, finishing the record
 * file and the buffer's writes) before the process exits regardless, in ms.
 */
const CLOSE_MARGIN_MS = 10_000;

export function serveCommand(program: Command): void {
  addSiteOption(program.command('serve'))
    .description(
      'serve an env over HTTP to remote trainers: AgentGym (WebShop and ALFWorld protocols) and OpenEnv (HTTP and WebSocket)',
    )
    .requiredOption('--env <name>', 'env to serve, e.g. webshop, household, synthetic:webshop')
    .option('--port <n>', 'port; 0 picks a free one', intOption(0, 65535), DEFAULT_PORT)
    .option('--host <address>', 'interface to bind; 0.0.0.0 for every interface', '127.0.0.1')
    .option(
      '--max-sessions <n>',
      'sessions open at once, in the whole server (all workers together)',
      intOption(1),
      DEFAULT_MAX_SESSIONS,
    )
    .option(
      '--workers <n>',
      'server processes sharing the port, to use more cores (see "Workers" below)',
      intOption(1),
      1,
    )
    .option(
      '--worker-heap <MB>',
      `with --workers: each worker's heap cap in MB (Node's --max-old-space-size; default ${DEFAULT_WORKER_HEAP_MB} unless NODE_OPTIONS sets one; 0 for none)`,
      intOption(0),
    )
    .option(
      '--idle-timeout <seconds>',
      'close sessions idle this long; 0 never',
      intOption(0),
      DEFAULT_IDLE_TIMEOUT_MS / 1000,
    )
    .option(
      '--max-action-chars <n>',
      'longest action passed to the env; a longer one is an invalid step (nothing changes, reward 0), recorded clipped',
      intOption(1),
      DEFAULT_MAX_ACTION_CHARS,
    )
    .option(
      '--token <token>',
      'require "Authorization: Bearer <token>": printable ASCII, not empty (default $DREAMGYM_TOKEN)',
    )
    .option(
      '--split <split>',
      'split whose task indices clients name: train or test',
      splitOption,
      'train',
    )
    .option('--max-steps <n>', "step limit per episode (default: the env's own)", intOption(1))
    .option('--catalog-size <n>', 'webshop: products in the generated catalog', intOption(10))
    .option('--catalog-seed <n>', 'webshop: catalog seed', intOption(0))
    .option('--db <path>', 'synthetic envs: the replay buffer (a SQLite file or a postgres:// URL)')
    .option(
      '--record <file>',
      'append each episode to this JSONL file as it ends, before its last step is answered (kept across restarts); with --workers, one file written by the primary',
    )
    .option(
      '--experience <model>',
      `synthetic envs: the experience model, llm (the reasoning LLM) or one learnt from the buffer without an LLM: llm-free (the same as auto), or ${EXPERIENCE_HELP.replace(/^the LLM-free experience model: /, '')}`,
      'llm-free',
    )
    .option('--llm-url <url>', '--experience llm: OpenAI-compatible base URL with /v1 (vLLM, …)')
    .option('--llm-model <name>', '--experience llm: the model, as the server names it')
    .option('--api-key <key>', '--experience llm: API key (default: env OPENAI_API_KEY, else none)')
    .option('--gguf <file>', '--experience llm: a local GGUF model instead of a server')
    .option(
      '--history-window <n>',
      '--experience llm: earlier steps shown with each prediction (default 4)',
      intOption(0),
    )
    .option(
      '--k <n>',
      'synthetic envs: demonstrations retrieved per step (default 4)',
      intOption(0),
    )
    .option(
      '--real-share <p>',
      'synthetic envs: share of the demonstrations that are real, the rest written-back synthetic ones (default 1)',
      probabilityOption,
    )
    .option(
      '--curriculum <mode>',
      "resets that name no task get DreamGym's curriculum's: variance, random or off (uniform train tasks); needs --tasks; variations by the LLM with --experience llm (one worker), else the offline mutators",
    )
    .option(
      '--tasks <path>',
      "the curriculum's task pool: a SQLite file (created if missing; a restart continues from it) or a postgres:// URL that every instance shares",
    )
    .option(
      '--instance <I/N>',
      'this server is instance I of N behind one load balancer: its session ids are I mod N, by which the balancer routes (docs/deploy.md)',
    )
    .option(
      '--drain-timeout <seconds>',
      'on SIGTERM: take no new sessions or episodes and wait this long for open episodes to end; then they are recorded as abandoned and the server exits within 10 s more',
      intOption(0),
      30,
    )
    .option(
      '--group-size <n>',
      'with --curriculum: consecutive task-less resets that get the same task (a GRPO group)',
      intOption(1),
      1,
    )
    .option(
      '--batch-tasks <n>',
      'with --curriculum: distinct tasks per curriculum iteration',
      intOption(1),
      16,
    )
    .option(
      '--no-write-back',
      'synthetic envs: keep finished episodes out of the buffer (default: stored as synthetic)',
    )
    .option(
      '--durable',
      'synthetic envs: answer the step that ends an episode only once the episode is committed to the buffer, so a crash loses none a client saw finish (default: answered once queued; see "Durability" below)',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  dreamgym serve --env webshop --port 36001\n  dreamgym serve --env household --host 0.0.0.0 --token "$TOKEN" --record data/served.jsonl\n\nProtocols: AgentGym WebShop at http://HOST:PORT/, AgentGym ALFWorld at http://HOST:PORT/alfworld,\nOpenEnv at http://HOST:PORT/openenv (WebSocket sessions at ws://HOST:PORT/openenv/ws).\n\nWorkers: --workers N forks N processes that all listen on the port (node:cluster); each\nconnection goes to one of them. A session lives in the worker that created it, and its id says\nwhich: a request for it that reaches another worker is forwarded there, so clients that open a\nconnection per request (AgentGym's) work unchanged; clients that keep one connection per session\nskip the hop. OpenEnv WebSocket sessions stay on their connection's worker; an OpenEnv HTTP\nsession's requests name it (the session_id its reset answered) and are forwarded the same way.\n--max-sessions counts the sessions of every worker (the primary keeps the count); /metrics and\n/list_envs are per worker. A synthetic env's workers all write\nback to the one --db buffer; the record file and the --tasks pool are written by the primary\nalone. A worker that dies stops the server (exit code 1): its sessions are gone, and clients\nwould otherwise see some of their sessions vanish. Each worker's heap is capped at\n--worker-heap MB (default ${DEFAULT_WORKER_HEAP_MB}).\n\nDurability: each episode is in the --record file before the step that ends it is answered,\nso a crash loses none a client saw finish. A synthetic env writes its episodes back to the\n--db buffer in batches, behind the answers: a crash (SIGKILL, out of memory) loses those not\nwritten yet, at most 500 (per worker); past 500 waiting, the steps that end episodes wait for the buffer\ninstead (back-pressure). --durable answers them only once the episode is committed. SIGTERM\ndrains for --drain-timeout, then records the open episodes as abandoned (a step still running\nis discarded) and exits within 10 s more; a second signal exits at once.\n\nLong runs: Node grows its heap lazily; one process (no --workers) caps it with\nNODE_OPTIONS=--max-old-space-size=1024.`,
    )
    .action(async (o) => {
      const token = serveToken(o.token);
      const options: ServeEnvOptions = {
        env: o.env,
        host: o.host,
        port: o.port,
        maxSessions: o.maxSessions,
        idleTimeoutSeconds: o.idleTimeout,
        maxActionChars: o.maxActionChars,
        split: o.split,
        ...(token !== undefined && { token }),
        ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
        ...(o.catalogSize !== undefined && { catalogSize: o.catalogSize }),
        ...(o.catalogSeed !== undefined && { catalogSeed: o.catalogSeed }),
        ...(o.db !== undefined && { db: o.db }),
        ...(o.record !== undefined && { record: o.record }),
        writeBack: o.writeBack,
        ...(o.durable && { durable: true }),
        ...servedLlmFromFlags(o),
        ...(o.k !== undefined && { k: o.k }),
        ...(o.realShare !== undefined && { realShare: o.realShare }),
        ...(o.instance !== undefined && { instance: parseInstance(o.instance) }),
        ...(o.curriculum !== undefined && {
          curriculum: {
            mode: checkMode(o.curriculum),
            tasksPath: requireTasks(o.tasks),
            groupSize: o.groupSize,
            batchTasks: o.batchTasks,
          },
        }),
      };
      if (isServeWorker()) {
        await runServeWorker(options);
        return;
      }
      const heapMb = workerHeap(o.workerHeap, o.workers);
      const served =
        o.workers > 1
          ? await serveWorkers(options, o.workers, { ...(heapMb !== undefined && { heapMb }) })
          : await serveEnv(options);
      const { url } = served;
      const workers: number = o.workers;
      console.log(
        [
          `serving ${o.env} (${o.split} split) at ${url}`,
          `  AgentGym WebShop   ${url}/`,
          `  AgentGym ALFWorld  ${url}/alfworld`,
          `  OpenEnv            ${url}/openenv  (WebSocket ${url.replace(/^http/, 'ws')}/openenv/ws)`,
          `  up to ${o.maxSessions} sessions, closed after ${o.idleTimeout} s idle${token ? ', bearer token required' : ''}`,
          ...(workers > 1
            ? [`  workers ${workers}${heapMb ? `, heap capped at ${heapMb} MB each` : ''}`]
            : []),
          ...(o.record ? [`  recording finished episodes to ${o.record}`] : []),
          ...(o.experience === 'llm'
            ? [`  experience model: the reasoning LLM ${o.llmModel ?? o.gguf}`]
            : []),
          ...(o.curriculum
            ? [
                `  tasks of task-less resets from the ${o.curriculum} curriculum (${o.tasks}), in groups of ${o.groupSize}; variations by ${o.experience === 'llm' && o.workers === 1 ? 'the experience model’s LLM' : 'the offline mutators'}`,
              ]
            : []),
          'Ctrl-C to stop.',
        ].join('\n'),
      );
      if (!LOOPBACK.has(o.host) && !token) {
        console.error(
          `warning: listening on ${o.host} without a token: anyone who can reach port ${served.port} can drive the envs. Pass --token (or set DREAMGYM_TOKEN).`,
        );
      }
      const signal = once(process, 'SIGINT').then(() => 'SIGINT');
      const term = once(process, 'SIGTERM').then(() => 'SIGTERM');
      const died = 'workerDied' in served ? served.workerDied : new Promise<never>(() => {});
      const stop = await Promise.race([
        signal.then((name) => ({ signal: name, death: undefined })),
        term.then((name) => ({ signal: name, death: undefined })),
        died.then((death) => ({ signal: undefined, death })),
      ]);
      if (stop.death) console.error(`${stop.death} Stopping the server.`);
      console.log(`\n${stop.signal ?? 'worker died'}: closing sessions…`);
      // A second signal means "now": what was not written yet is lost, which it says.
      const now = () => {
        console.error(
          'second signal: exiting now. The record file has every finished episode; open episodes are not recorded, and finished ones not yet written to the buffer are lost (none with --durable).',
        );
        if ('kill' in served) served.kill();
        process.exit(130);
      };
      process.once('SIGINT', now).once('SIGTERM', now);
      // SIGTERM is how orchestrators stop a server: let the episodes under way finish first.
      const drainMs = stop.signal === 'SIGTERM' ? o.drainTimeout * 1000 : 0;
      if (drainMs > 0) {
        console.log(`draining for up to ${o.drainTimeout} s: no new sessions or episodes…`);
      }
      const overdue = setTimeout(() => {
        console.error(
          `closing took over ${CLOSE_MARGIN_MS / 1000} s after the drain (the buffer's writes did not finish): exiting; episodes not yet written to the buffer are lost.`,
        );
        if ('kill' in served) served.kill();
        process.exit(1);
      }, drainMs + CLOSE_MARGIN_MS).unref();
      const { stats, failures } =
        'workerDied' in served ? await served.close(drainMs) : await closeOne(served, drainMs);
      clearTimeout(overdue);
      for (const failure of failures) console.error(failure);
      console.log(
        `served ${stats.sessionsOpened} sessions, ${stats.episodesFinished} finished episodes, ${stats.steps} steps` +
          (o.record ? `\nwrote ${served.recorded()} episodes to ${o.record}` : ''),
      );
      const code = stop.death || failures.length > 0 ? 1 : 0;
      // An env still in a call (an LLM request that times out in minutes) would keep the closed
      // server's process alive for it.
      if (!('workerDied' in served) && served.server.sessions.envsClosing > 0) {
        await exitFlushed(code);
      }
      if (code !== 0) throw new CliExit(code);
    });
}

/**
 * Each worker's heap cap: `--worker-heap`, else the default unless `NODE_OPTIONS` sets one (the
 * workers inherit it). One process cannot cap its own heap once started, so the flag without
 * `--workers` is refused, naming what does.
 */
function workerHeap(flag: number | undefined, workers: number): number | undefined {
  if (workers === 1) {
    if (flag !== undefined) {
      throw new ConfigError(
        '--worker-heap caps the heap of --workers processes; a single server process takes NODE_OPTIONS=--max-old-space-size=MB instead.',
      );
    }
    return undefined;
  }
  if (flag !== undefined) return flag;
  return /--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '')
    ? undefined
    : DEFAULT_WORKER_HEAP_MB;
}

/**
 * The token of `--token`, else of `$DREAMGYM_TOKEN`, checked: an empty one is refused rather than
 * turning authentication off, and so is one no client could send in a header.
 */
function serveToken(flag: string | undefined): string | undefined {
  if (flag !== undefined) return checkToken(flag, '--token');
  const fromEnv = process.env.DREAMGYM_TOKEN;
  return fromEnv === undefined ? undefined : checkToken(fromEnv, '$DREAMGYM_TOKEN');
}

/**
 * Ends the process once stdout and stderr have taken what was printed (a plain `process.exit`
 * may cut a piped stdout short).
 */
async function exitFlushed(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise((resolve) => stream.write('', resolve)),
    ),
  );
  process.exit(code);
}

/** Closes a single-process server; its counts. */
async function closeOne(served: ServedEnv, drainMs: number): Promise<WorkersSummary> {
  const open = drainMs > 0 ? await served.drain(drainMs) : 0;
  if (open > 0) console.log(`${open} sessions still mid-episode: recorded as abandoned.`);
  await served.close();
  return { stats: served.server.sessions.stats, failures: [] };
}

/** The task pool path `--curriculum` needs, or an error naming the flag. */
function requireTasks(path: string | undefined): string {
  if (!path) {
    throw new ConfigError(
      '--curriculum keeps its state in a task pool file: pass --tasks PATH (created if missing).',
    );
  }
  return path;
}

/**
 * The experience model options of `serveEnv` from `--experience` and its flags: `llm` with
 * `--experience llm`, else the LLM-free model it names (`llm-free` is `auto`); LLM flags without
 * `--experience llm` are refused.
 */
function servedLlmFromFlags(o: {
  experience: string;
  llmUrl?: string;
  llmModel?: string;
  apiKey?: string;
  gguf?: string;
  historyWindow?: number;
}): { llm?: ServedLlm; experience?: ExperienceChoice } {
  const given = [
    ['--llm-url', o.llmUrl],
    ['--llm-model', o.llmModel],
    ['--gguf', o.gguf],
    ['--history-window', o.historyWindow],
  ].filter(([, value]) => value !== undefined);
  if (o.experience !== 'llm') {
    const experience = EXPERIENCE_CHOICES.find(
      (c) => c === (o.experience === 'llm-free' ? 'auto' : o.experience),
    );
    if (experience === undefined) {
      throw new ConfigError(
        `unknown --experience "${o.experience}"; use llm, llm-free or one of ${EXPERIENCE_CHOICES.join(', ')}.`,
      );
    }
    if (given.length > 0) {
      throw new ConfigError(
        `${given.map(([flag]) => flag).join(', ')}: options of the LLM experience model; add --experience llm.`,
      );
    }
    return experience === 'auto' ? {} : { experience };
  }
  const apiKey = o.apiKey ?? process.env.OPENAI_API_KEY;
  return {
    llm: {
      ...(o.llmUrl !== undefined && { url: o.llmUrl }),
      ...(o.llmModel !== undefined && { model: o.llmModel }),
      ...(apiKey !== undefined && { apiKey }),
      ...(o.gguf !== undefined && { gguf: o.gguf }),
      ...(o.historyWindow !== undefined && { historyWindow: o.historyWindow }),
    },
  };
}
