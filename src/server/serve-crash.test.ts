/**
 * What `dreamgym serve` keeps when it is killed or stopped (issue 58): every episode a client saw
 * finish is in the record file after a SIGKILL, and with `--durable` in the PostgreSQL buffer too;
 * a SIGTERM ends within the drain timeout even while an env call hangs, with the record finished.
 */
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_START_MS, spawningTestTimeout } from '../cli/testing/timeouts.ts';
import { readTrajectories } from '../data/trajectory-file.ts';
import { PostgresReplayBuffer } from '../replay/postgres-buffer.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { webshopTrajectories } from '../replay/testing/fixtures.ts';
import { startTestPostgres, type TestPostgres } from '../replay/testing/postgres-server.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import { ServeChildren } from './testing/serve-child.ts';

const servers = new ServeChildren();
afterEach(() => servers.kill());
let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
afterAll(() => postgres?.stop());

async function post<T>(url: string, body: object): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * `clients` sessions playing episodes until the server goes away; each episode's first action
 * carries its tag (`search[… #c<client>e<episode>]`). `onFinished` sees the count of episodes
 * whose final step was answered; resolves to their tags.
 */
async function drive(
  url: string,
  clients: number,
  onFinished: (count: number) => void,
): Promise<Set<string>> {
  const finished = new Set<string>();
  const client = async (k: number) => {
    try {
      const id = await post<number>(`${url}/create`, {});
      for (let episode = 0; ; episode++) {
        const tag = `c${k}e${episode}`;
        await post(`${url}/reset`, { env_idx: id, session_id: (k * 7 + episode) % 100 });
        let action = `search[mug #${tag}]`;
        for (let done = false; !done; action = 'click[back to search]') {
          ({ done } = await post<{ done: boolean }>(`${url}/step`, { env_idx: id, action }));
        }
        finished.add(tag);
        onFinished(finished.size);
      }
    } catch {
      // The server was killed: this client's request in flight got no answer.
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  return finished;
}

/** The tags of trajectories, from their first action. */
function tags(firstActions: readonly string[]): Set<string> {
  return new Set(firstActions.flatMap((action) => /#(c\d+e\d+)\]/.exec(action)?.[1] ?? []));
}

async function recordedTags(record: string): Promise<Set<string>> {
  return tags((await readTrajectories(record)).map((t) => t.steps[0]?.action ?? ''));
}

describe('dreamgym serve, killed or stopped', { timeout: spawningTestTimeout(2) }, () => {
  it('with --durable, a SIGKILL loses no finished episode: each is in the PostgreSQL buffer and the record', async () => {
    const db = await postgres.newDatabase();
    const buffer = await PostgresReplayBuffer.open({ url: db, encoder: new TransitionEncoder() });
    await buffer.add(await webshopTrajectories(30));
    await buffer.close();
    const record = join(mkdtempSync(join(tmpdir(), 'dreamgym-serve-kill-')), 'served.jsonl');
    const { url, process: child } = await servers.start(
      ['--env', 'synthetic:webshop', '--db', db, '--durable', '--record', record].concat([
        '--port',
        '0',
        '--max-steps',
        '2',
      ]),
      CHILD_START_MS,
    );
    // Killed while the other clients' steps, final ones among them, are under way.
    const finished = await drive(url, 8, (count) => {
      if (count === 60) child.kill('SIGKILL');
    });
    expect(finished.size).toBeGreaterThanOrEqual(60);
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    const { rows } = await client.query(
      "SELECT action FROM transitions WHERE t = 0 AND provenance = 'synthetic'",
    );
    await client.end();
    const stored = tags(rows.map((r) => r.action as string));
    expect([...finished].filter((tag) => !stored.has(tag))).toEqual([]);
    const recorded = await recordedTags(record);
    expect([...finished].filter((tag) => !recorded.has(tag))).toEqual([]);
  });

  for (const workers of ['1', '2']) {
    it(`with ${workers} worker(s), a SIGKILL leaves every finished episode in the record file`, async () => {
      const record = join(mkdtempSync(join(tmpdir(), 'dreamgym-serve-kill-')), 'served.jsonl');
      const { url, process: child } = await servers.start(
        ['--env', 'webshop', '--record', record, '--workers', workers].concat([
          '--port',
          '0',
          '--max-steps',
          '2',
        ]),
        CHILD_START_MS,
      );
      const finished = await drive(url, 4, (count) => {
        if (count === 20) child.kill('SIGKILL');
      });
      expect(finished.size).toBeGreaterThanOrEqual(20);
      const recorded = await recordedTags(record);
      expect([...finished].filter((tag) => !recorded.has(tag))).toEqual([]);
    });
  }

  it('on SIGTERM, exits within the drain timeout while a step hangs, the open episode recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-serve-drain-'));
    const db = join(dir, 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path: db });
    await buffer.add(await webshopTrajectories(30));
    await buffer.close();
    // An LLM server that takes requests and never answers them.
    let asked = 0;
    const llm: Server = createServer(() => {
      asked++;
    }).listen(0, '127.0.0.1');
    await once(llm, 'listening');
    const { port } = llm.address() as { port: number };
    const record = join(dir, 'served.jsonl');
    try {
      const {
        url,
        output,
        process: child,
      } = await servers.start(
        ['--env', 'synthetic:webshop', '--db', db, '--record', record, '--drain-timeout', '2']
          .concat(['--experience', 'llm', '--llm-url', `http://127.0.0.1:${port}/v1`])
          .concat(['--llm-model', 'never-answers', '--port', '0']),
        CHILD_START_MS,
      );
      const id = await post<number>(`${url}/create`, {});
      await post(`${url}/reset`, { env_idx: id, session_id: 0 });
      const step = post(`${url}/step`, { env_idx: id, action: 'search[mug]' }).catch(() => null);
      for (let waited = 0; asked === 0 && waited < 30_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(asked).toBeGreaterThan(0); // the step waits for the LLM
      const started = performance.now();
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      const seconds = (performance.now() - started) / 1000;
      // Before the fix it waited for the LLM's 120 s timeout, and again for its retry.
      expect({ seconds: seconds < 2 + 8, code, output: output() }).toMatchObject({
        seconds: true,
        code: 0,
      });
      await step;
      const [abandoned] = await readTrajectories(record);
      expect(abandoned?.steps).toEqual([]);
      expect(output()).toContain(`wrote 1 episodes to ${record}`);
    } finally {
      llm.closeAllConnections();
      llm.close();
    }
  });
});
