import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A PGlite database served over the PostgreSQL wire protocol, for tests. */
export interface TestPglite {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the one database of this PGlite. */
  url: string;
  /** Stops the server and closes the database (what is in `dataDir` stays). */
  stop(): Promise<void>;
}

/** How the test PGlite starts. */
export interface TestPgliteOptions {
  /** Ship pgvector (`vector` in `pg_available_extensions`). Default true. */
  vector?: boolean;
  /** A directory that keeps the database across restarts; default in memory. */
  dataDir?: string;
}

/**
 * PGlite's server accepts this many connections and runs their messages one at a time on its one
 * backend; a transaction's messages run before any other connection's (pglite-socket 0.2.17).
 * Outside transactions two connections' extended-protocol messages (parse, bind, execute) can
 * interleave on that one backend, so tests open their buffers with `poolSize: 1`; the spare
 * connections let a pool replace a dropped connection without being refused.
 */
const MAX_CONNECTIONS = 4;

/**
 * Starts a fresh PGlite (PostgreSQL in WebAssembly, in this process) with pgvector, served on a
 * free port of 127.0.0.1 by `@electric-sql/pglite-socket`. PGlite holds one database, so each
 * test that needs a new database starts its own (≈ 1 s) and stops it after. Fails with the fix
 * named when the packages are missing.
 */
export async function startTestPglite(options: TestPgliteOptions = {}): Promise<TestPglite> {
  const packages = await loadPackages();
  const db: PGlite = await packages.PGlite.create({
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
    extensions: options.vector === false ? {} : { vector: packages.vector },
  });
  const server: PGLiteSocketServer = new packages.PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw new Error(`the PGlite test server did not start: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

async function loadPackages() {
  try {
    const [{ PGlite }, { vector }, { PGLiteSocketServer }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-pgvector'),
      import('@electric-sql/pglite-socket'),
    ]);
    return { PGlite, vector, PGLiteSocketServer };
  } catch (error) {
    throw new Error(
      `PGlite tests need the dev dependencies @electric-sql/pglite, @electric-sql/pglite-pgvector and @electric-sql/pglite-socket: run \`npm ci\` (${(error as Error).message}).`,
      { cause: error },
    );
  }
}
