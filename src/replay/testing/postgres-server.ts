import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A throw-away PostgreSQL server for tests: `url(db)` for a database of its own per test. */
export interface TestPostgres {
  /** A URL of a new, empty database on the server. */
  newDatabase(): Promise<string>;
  /** Stops the server and removes its data directory. */
  stop(): void;
}

/** How a test PostgreSQL server runs. */
export interface TestPostgresOptions {
  /**
   * Flush commits to disk, as a production server does. Default false: tests need no crash
   * safety of the machine, and benchmarks of commit latency turn it on.
   */
  fsync?: boolean;
}

/**
 * Starts Debian's PostgreSQL server (`initdb` + `pg_ctl`) in a temporary directory on a free
 * port. As root, initdb refuses to run, so the server runs as the `postgres` user (through
 * `runuser`) in a directory that user owns. Fails with the fix named when it cannot start.
 */
export async function startTestPostgres(options: TestPostgresOptions = {}): Promise<TestPostgres> {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [];
  const bin = versions
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .find((b) => existsSync(join(b, 'initdb')));
  if (!bin) {
    throw new Error(
      'PostgreSQL tests need a PostgreSQL server (initdb, pg_ctl): run `npm run setup` (installs Debian’s postgresql package).',
    );
  }
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dreamgym-pg-'));
  chmodSync(dir, 0o755);
  const asOwner = (command: string, args: string[]) => {
    if (!root) return spawnSync(command, args, { encoding: 'utf8' });
    return spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' });
  };
  if (root) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) {
      throw new Error(
        'PostgreSQL refuses to run as root and there is no `postgres` user to run it as: install Debian’s postgresql package (`npm run setup`), which creates it, or run the tests as an unprivileged user.',
      );
    }
    const uid = Number(id.stdout.trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const init = asOwner(join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'dreamgym',
    '--no-sync',
  ]);
  if (init.status !== 0) {
    throw new Error(
      `initdb failed (${init.stderr.trim() || init.error?.message}); run the tests as an unprivileged user, or as root with a postgres user (npm run setup).`,
    );
  }
  const port = await freePort();
  const start = asOwner(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? 'on' : 'off'} -c max_connections=200`,
    'start',
  ]);
  if (start.status !== 0)
    throw new Error(`pg_ctl start failed: ${start.stderr.trim()} (see ${dir}/log)`);
  let databases = 0;
  return {
    async newDatabase() {
      const name = `t${process.pid}_${databases++}`;
      const admin = new pg.Client({
        connectionString: `postgres://dreamgym@127.0.0.1:${port}/postgres`,
      });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://dreamgym@127.0.0.1:${port}/${name}`;
    },
    stop() {
      asOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A TCP port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
