import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateBuffer } from './migrate-buffer.ts';
import { PostgresReplayBuffer } from './postgres-buffer.ts';
import { SqliteReplayBuffer } from './sqlite-buffer.ts';
import { toArray, webshopTrajectories } from './testing/fixtures.ts';
import { startTestPostgres, type TestPostgres } from './testing/postgres-server.ts';
import { TransitionEncoder } from './transition-encoder.ts';

const worker = join(import.meta.dirname, 'testing/postgres-worker.ts');
let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop());

describe('the PostgreSQL buffer with other buffers and processes', () => {
  it('migrates a SQLite buffer to PostgreSQL and back, trajectories exactly as they were', async () => {
    const sqlite = SqliteReplayBuffer.open({ encoder: new TransitionEncoder() });
    const postgres = await PostgresReplayBuffer.open({
      url: await server.newDatabase(),
      encoder: new TransitionEncoder(),
    });
    const back = SqliteReplayBuffer.open({ encoder: new TransitionEncoder() });
    try {
      const offline = await webshopTrajectories(12);
      await sqlite.add(offline);
      expect(await migrateBuffer(sqlite, postgres)).toEqual({ added: 12, skipped: 0 });
      expect(await migrateBuffer(sqlite, postgres)).toEqual({ added: 0, skipped: 12 });
      expect(await migrateBuffer(postgres, back)).toEqual({ added: 12, skipped: 0 });
      expect(await toArray(back.trajectories())).toEqual(offline);
      expect((await postgres.stats()).transitions).toBe((await sqlite.stats()).transitions);
    } finally {
      await Promise.all([sqlite.close(), postgres.close(), back.close()]);
    }
  }, 120_000);

  it('4 processes write episodes while 4 others retrieve: exact counts, no errors', async () => {
    const url = await server.newDatabase();
    const episodes = 40;
    const run = (role: string, i: number) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', worker, role, url, String(i), String(episodes)],
        {
          timeout: 170_000,
        },
      ).then(({ stdout }) => JSON.parse(stdout.trim().split('\n').at(-1) as string));
    const results = await Promise.all([
      ...[0, 1, 2, 3].map((i) => run('writer', i)),
      ...[0, 1, 2, 3].map((i) => run('reader', i)),
    ]);
    expect(results.slice(0, 4)).toEqual(Array(4).fill({ role: 'writer', added: episodes }));
    for (const reader of results.slice(4))
      expect(reader).toMatchObject({ role: 'reader', seen: 4 * episodes });
    const buffer = await PostgresReplayBuffer.open({ url, encoder: new TransitionEncoder() });
    try {
      const stats = await buffer.stats();
      expect(stats.trajectories).toBe(4 * episodes);
      expect(stats.transitions).toBe(4 * episodes * 2);
      expect(stats.annIndexed.real).toBe(4 * episodes * 2);
      const ids = new Set(await buffer.trajectoryIds());
      for (let w = 0; w < 4; w++)
        for (let n = 0; n < episodes; n++) expect(ids.has(`w${w}-${n}`)).toBe(true);
      const [best] = await buffer.retrieve(
        {
          state: { text: 'page w3-7 step 1 item 7' },
          action: 'click[w3-7 1]',
          task: { instruction: 'buy item 7' },
        },
        1,
      );
      expect(best?.trajectoryId).toBe('w3-7');
    } finally {
      await buffer.close();
    }
  }, 200_000);
});
