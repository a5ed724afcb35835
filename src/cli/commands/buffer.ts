import { type Command, InvalidArgumentError } from 'commander';
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

export function bufferCommand(program: Command): void {
  const buffer = program
    .command('buffer')
    .description('the replay buffer: import, export, inspect and search experience');

  buffer
    .command('import')
    .description('add the trajectories of a JSONL file (all or nothing)')
    .argument('<file>', 'trajectory JSONL file')
    .requiredOption(
      '--db <path>',
      'the buffer: a SQLite file (created if missing) or a postgres:// URL',
    )
    .action(async (file: string, o) => {
      const started = performance.now();
      await checkTrajectoryFile(file); // before the buffer is created for it
      const { added, skipped } = await withBuffer(o.db, (b) => importJsonl(b, file), {
        create: true,
        onLockWait: (message) => console.error(message),
      });
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
