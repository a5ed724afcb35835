import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../../data/transcripts/sniff.ts';
import {
  detectFileFormat,
  readTranscriptFile,
  type TranscriptFormat,
} from '../../data/transcripts/transcript-file.ts';
import { checkTrajectoryFile, exportJsonl, importJsonl } from '../../replay/jsonl.ts';
import { migrateBuffer } from '../../replay/migrate-buffer.ts';
import { type OpenBufferOptions, ReplayBuffer } from '../../replay/open-buffer.ts';
import { intOption } from '../options.ts';

const PROVENANCES = ['real-offline', 'real-online', 'synthetic'] as const;

function provenanceOption(value: string) {
  if (!(PROVENANCES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${PROVENANCES.join(', ')}, got "${value}".`);
  }
  return value as (typeof PROVENANCES)[number];
}

/**
 * Runs `body` on the buffer at `path`, closed afterwards. Only `import` creates a missing buffer:
 * a read command on a mistyped path fails and leaves nothing behind.
 */
async function withBuffer<T>(
  path: string,
  body: (buffer: ReplayBuffer) => Promise<T>,
  options: Pick<OpenBufferOptions, 'create' | 'onLockWait'> = { create: false },
): Promise<T> {
  const buffer = await ReplayBuffer.open({ path, ...options });
  try {
    return await body(buffer);
  } finally {
    await buffer.close();
  }
}

/** The format to read `file` as: the one given, else the one its start shows, else trajectories. */
async function importFormat(file: string, given: ImportFormat | undefined): Promise<ImportFormat> {
  if (given) {
    console.log(`reading ${file} as ${given}`);
    return given;
  }
  const detected = await detectFileFormat(file);
  console.log(
    detected
      ? `reading ${file} as ${detected} (detected; --format to override)`
      : `reading ${file} as trajectories (no format detected; --format ${IMPORT_FORMATS.join('|')} to choose)`,
  );
  return detected ?? 'trajectories';
}

interface ImportOptions {
  db: string;
  env?: string;
  outcomes?: string;
}

/**
 * Runs an import on the buffer at `db`, created if missing. An import adds all or nothing, so
 * when it fails into a buffer it created, the empty database (and any folders made for it) is
 * removed: a refused file leaves nothing behind.
 */
async function openForImport<T>(
  db: string,
  body: (buffer: ReplayBuffer) => Promise<T>,
): Promise<T> {
  const created = newDatabasePath(db);
  try {
    return await withBuffer(db, body, {
      create: true,
      onLockWait: (message) => console.error(message),
    });
  } catch (error) {
    if (created) {
      for (const file of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`])
        rmSync(file, { force: true });
      if (created !== db) rmSync(created, { recursive: true, force: true });
    }
    throw error;
  }
}

/**
 * When `db` names a SQLite file that does not exist yet: the outermost path that an import would
 * create for it (a missing folder, or the file itself). Undefined for an existing file, `:memory:`
 * and server URLs.
 */
function newDatabasePath(db: string): string | undefined {
  if (db === ':memory:' || /^[a-z][a-z0-9+.-]*:\/\//i.test(db) || existsSync(db)) return undefined;
  let outermost = resolve(db);
  while (!existsSync(dirname(outermost))) outermost = dirname(outermost);
  return outermost === resolve(db) ? db : outermost;
}

/** A trajectory file names its env on every line and carries its rewards: it is streamed as is. */
function importTrajectoryFile(file: string, o: ImportOptions) {
  const transcriptOnly = [o.env && '--env', o.outcomes && '--outcomes'].filter(Boolean);
  if (transcriptOnly.length > 0) {
    throw new ConfigError(
      `${transcriptOnly.join(' and ')} ${transcriptOnly.length === 1 ? 'applies' : 'apply'} to transcripts (--format openai-chat or otlp); a trajectory file names its env and rewards on every line. Drop ${transcriptOnly.join(' and ')}, or pass --format if ${file} is a transcript.`,
    );
  }
  return openForImport(o.db, (b) => importJsonl(b, file));
}

/** Transcripts are read and checked whole before the buffer is opened: a bad file adds nothing. */
async function importTranscripts(file: string, format: TranscriptFormat, o: ImportOptions) {
  if (!o.env) {
    throw new ConfigError(
      `importing ${format} transcripts needs --env NAME: the env family their episodes belong to, e.g. --env helpdesk (or the env module they come from, --env ./my-env.ts).`,
    );
  }
  const { trajectories, warnings } = await readTranscriptFile(file, {
    format,
    env: o.env,
    ...(o.outcomes !== undefined && { outcomesPath: o.outcomes }),
  });
  for (const warning of warnings) console.error(`warning: ${warning}`);
  console.log(`read ${trajectories.length} episodes`);
  return openForImport(o.db, (b) => b.add(trajectories));
}

export function bufferCommand(program: Command): void {
  const buffer = program
    .command('buffer')
    .description('the replay buffer: import, export, inspect and search experience');

  buffer
    .command('import')
    .description(
      'add the episodes of a trajectory JSONL file, OpenAI chat transcripts or OTLP GenAI spans (all or nothing)',
    )
    .argument(
      '<file>',
      'trajectory JSONL, OpenAI chat JSONL (a conversation a line) or OTLP JSON spans (docs/transcripts.md)',
    )
    .requiredOption(
      '--db <path>',
      'the buffer: a SQLite file (created if missing) or a postgres:// URL',
    )
    .addOption(
      new Option('--format <format>', 'the file format (default: detected from its start)').choices(
        IMPORT_FORMATS,
      ),
    )
    .option(
      '--env <name>',
      'transcripts: the env family their episodes belong to, e.g. helpdesk or ./my-env.ts (required for them)',
    )
    .option(
      '--outcomes <file>',
      'transcripts: JSONL of {"id": conversation id or traceId, "reward": …} outcomes',
    )
    .action(async (file: string, o) => {
      const started = performance.now();
      await checkTrajectoryFile(file); // before the buffer is created for it
      const format = await importFormat(file, o.format);
      const { added, skipped } =
        format === 'trajectories'
          ? await importTrajectoryFile(file, o)
          : await importTranscripts(file, format, o);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `added ${added} trajectories (${skipped} already stored) in ${seconds} s\nbuffer: ${o.db}`,
      );
    });

  buffer
    .command('migrate')
    .description(
      'copy every trajectory of one buffer into another (SQLite ⇄ PostgreSQL), all or nothing',
    )
    .requiredOption('--from <location>', 'the source buffer: a SQLite file or a postgres:// URL')
    .requiredOption('--to <location>', 'the target buffer (created if missing)')
    .action(async (o) => {
      const started = performance.now();
      const { added, skipped } = await withBuffer(o.from, (source) =>
        withBuffer(o.to, (target) => migrateBuffer(source, target), { create: true }),
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `copied ${added} trajectories (${skipped} already there) in ${seconds} s\nbuffer: ${o.to}`,
      );
    });

  buffer
    .command('export')
    .description('write the stored trajectories as JSONL')
    .requiredOption('--db <path>', 'the buffer: a SQLite file or a postgres:// URL')
    .requiredOption('--out <file>', 'output JSONL file')
    .option('--env <name>', 'only this env')
    .option('--provenance <p>', `only this provenance: ${PROVENANCES.join(', ')}`, provenanceOption)
    .action(async (o) => {
      const count = await withBuffer(o.db, (b) =>
        exportJsonl(b, o.out, { env: o.env, provenance: o.provenance }),
      );
      console.log(`wrote ${count} trajectories to ${o.out}`);
    });

  buffer
    .command('stats')
    .description('counts by env and provenance, success rates, size')
    .requiredOption('--db <path>', 'the buffer: a SQLite file or a postgres:// URL')
    .option('--json', 'print JSON')
    .action(async (o) => {
      const stats = await withBuffer(o.db, async (b) => b.stats());
      if (o.json) {
        console.log(JSON.stringify(stats, null, 2));
        return;
      }
      console.log(
        `${o.db}: ${stats.trajectories} trajectories, ${stats.transitions} transitions, ${stats.distinctObservations} distinct observations`,
      );
      const { real, synthetic } = stats.annIndexed;
      const indexed =
        real === null
          ? ''
          : ` (ANN index of ${real} real transitions${synthetic === null ? '' : `, one of ${synthetic} synthetic`})`;
      console.log(
        `success rate ${(100 * stats.successRate).toFixed(1)}%, ${(stats.bytes / 2 ** 20).toFixed(1)} MiB, ${stats.retrieval} retrieval${indexed}, encoder ${stats.encoder}`,
      );
      if (stats.retrievalNote) console.log(`retrieval: ${stats.retrievalNote}`);
      for (const [env, byProvenance] of Object.entries(stats.byEnv)) {
        for (const [provenance, s] of Object.entries(byProvenance)) {
          console.log(
            `  ${env.padEnd(10)} ${provenance.padEnd(13)} ${String(s.trajectories).padStart(7)} trajectories ${String(s.transitions).padStart(8)} transitions  success ${(100 * s.successRate).toFixed(1)}%`,
          );
        }
      }
    });

  buffer
    .command('search')
    .description('the stored transitions most similar to a state and action')
    .requiredOption('--db <path>', 'the buffer: a SQLite file or a postgres:// URL')
    .requiredOption('--state <text>', 'state (observation) text')
    .requiredOption('--action <action>', 'action, e.g. "click[Buy Now]"')
    .option('--instruction <text>', 'task instruction', '')
    .option('-k <n>', 'how many', intOption(1, 1000), 5)
    .option('--env <name>', 'only this env')
    .option('--provenance <p>', `only this provenance: ${PROVENANCES.join(', ')}`, provenanceOption)
    .action(async (o) => {
      const hits = await withBuffer(o.db, (b) =>
        b.retrieve(
          { state: { text: o.state }, action: o.action, task: { instruction: o.instruction } },
          o.k,
          {
            env: o.env,
            provenance: o.provenance,
          },
        ),
      );
      if (hits.length === 0) console.log('no stored transition matches the filters');
      for (const [i, hit] of hits.entries()) {
        console.log(
          `\n#${i + 1} similarity ${hit.similarity.toFixed(3)} · ${hit.provenance} · ${hit.trajectoryId} step ${hit.t}`,
        );
        console.log(`task:   ${hit.task.instruction}`);
        console.log(`state:  ${oneLine(hit.state.text)}`);
        console.log(`action: ${hit.action}`);
        console.log(`next:   ${oneLine(hit.nextState.text)}`);
        console.log(
          `reward: ${hit.reward}${hit.terminated ? ' (terminated)' : ''}${hit.truncated ? ' (truncated)' : ''}`,
        );
      }
    });
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
