import { once } from 'node:events';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { DEFAULT_VIEW_PORT, listenViewer } from '../../view/listen-viewer.ts';
import { type ViewTarget, viewTarget } from '../../view/view-target.ts';
import { createViewer } from '../../view/viewer.ts';
import { intOption } from '../options.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** `dreamgym view PATH`: the read-only web viewer of a run folder, a buffer or a trajectory file. */
export function viewCommand(program: Command): void {
  program
    .command('view')
    .description(
      'look at experience in a browser: episodes (filters, counts, paging), one episode step by step, synthetic beside real, and a live run dashboard; read-only',
    )
    .argument(
      '<path>',
      'a run folder (dreamgym run --out DIR), a replay buffer (.db) or a trajectory file (.jsonl)',
    )
    .option('--port <n>', 'port; 0 picks a free one', intOption(0, 65535), DEFAULT_VIEW_PORT)
    .option('--host <address>', 'interface to bind; 0.0.0.0 for every interface', '127.0.0.1')
    .option(
      '--token <token>',
      'require this token (default $DREAMGYM_TOKEN): open the printed ?token= link once',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  dreamgym view runs/webshop-llm-free-2026-…      # dashboard + the run\'s episodes, live\n  dreamgym view runs/x/buffer.db --port 8080\n  dreamgym view data/webshop-offline.jsonl\n  dreamgym view runs/x --host 0.0.0.0 --token "$TOKEN"\n\nPages: /dashboard (run folders), /episodes, /episodes/ID (keys ← → step), /compare?task=ID.\nThe viewer opens the buffer read-only and answers GET requests only.',
    )
    .action(async (path: string, o) => {
      const token: string | undefined = o.token ?? process.env.DREAMGYM_TOKEN;
      const target = checkedTarget(path);
      const viewer = await createViewer({
        target,
        ...(token !== undefined && token !== '' && { token }),
      });
      const served = await listenViewer(viewer, { host: o.host, port: o.port });
      const what =
        target.kind === 'run'
          ? `run folder ${target.dir}`
          : target.kind === 'buffer'
            ? `replay buffer ${target.path}`
            : `trajectory file ${target.path}`;
      console.log(
        [
          `viewing ${what}: ${viewer.index.size.toLocaleString('en-US')} episodes`,
          `open ${served.url}/${token ? `?token=${encodeURIComponent(token)}` : ''}`,
          'Ctrl-C to stop.',
        ].join('\n'),
      );
      if (!LOOPBACK.has(o.host) && !token) {
        console.error(
          `warning: listening on ${o.host} without a token: anyone who can reach port ${served.port} can read these episodes. Pass --token (or set DREAMGYM_TOKEN).`,
        );
      }
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      await served.close();
      console.log('\nstopped.');
    });
}

/** Names of database files: a file so named must be a buffer, never read as trajectories. */
const DATABASE_NAME = /\.(db|sqlite3?)$/i;

/**
 * What `view` shows at `path`; a file named like a database (`.db`, `.sqlite`) that is not a
 * SQLite database is refused, as the buffer commands refuse it, instead of being read line by
 * line as a trajectory file.
 */
function checkedTarget(path: string): ViewTarget {
  const target = viewTarget(path);
  if (target.kind === 'trajectories' && DATABASE_NAME.test(path)) {
    throw new ConfigError(
      `${path} is not a SQLite database, so not a replay buffer: pass the .db file that dreamgym run or dreamgym buffer import wrote (or a trajectory file, .jsonl).`,
    );
  }
  return target;
}
