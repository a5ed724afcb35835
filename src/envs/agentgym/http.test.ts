import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentGymHttpError, AgentGymProtocolError, AgentGymServerError } from './errors.ts';
import { JsonHttpClient } from './http.ts';
import { type FakeServer, fastapiLikeApp, listen } from './testing/serve.ts';

const Answer = z.object({ ok: z.boolean() });
/** Bytes no server should send: a terminal escape, a bell, bytes that are not UTF-8; 64 KB. */
const GARBAGE = new Uint8Array(65_536).map(
  (_, i) => [0x1b, 0x5b, 0x32, 0x4a, 0x07, 0xff][i % 6] ?? 0,
);
/** Control characters, raw: none may reach an error message. */
const CONTROL = /\p{Cc}/u;

let server: FakeServer;
let refusedUrl: string;

beforeAll(async () => {
  const { app, calls, faults } = fastapiLikeApp();
  app.get('/ok', (c) => c.json({ ok: c.req.query('n') === '1' }));
  app.post('/ok', async (c) => c.json({ ok: (await c.req.json()).n === 1 }));
  app.post('/unprocessable', (c) => c.json({ detail: [{ msg: 'Field required' }] }, 422));
  app.post('/crash', () => {
    throw new Error('KeyError: 7');
  });
  app.get('/html', (c) => c.html('<h1>a proxy page</h1>'));
  app.get('/shape', (c) => c.json({ ok: 'yes' }));
  app.get('/garbage', () => new Response(GARBAGE, { status: 200 }));
  app.post('/garbage-500', () => new Response(GARBAGE, { status: 500 }));
  app.post('/caught', (c) => c.json({ error: 'The id 7 is not valid.' }));
  server = await listen(app, calls, faults);
  const gone = await listen(fastapiLikeApp().app, [], { delayMs: 0, unavailable: 0, dropped: 0 });
  refusedUrl = gone.url;
  await gone.close();
});

afterAll(async () => {
  await server.close();
});

const client = (options: ConstructorParameters<typeof JsonHttpClient>[2] = {}) =>
  new JsonHttpClient(`${server.url}/`, 'AgentGym test server', { backoffMs: 1, ...options });

const countCalls = async (path: string, run: () => Promise<unknown>) => {
  const before = server.callsTo(path).length;
  await run().catch(() => undefined);
  return server.callsTo(path).slice(before);
};

describe('JsonHttpClient', () => {
  it('sends query strings and JSON bodies and checks answers against the schema', async () => {
    expect(await client().get('/ok', { n: 1 }, Answer)).toEqual({ ok: true });
    expect(await client().post('/ok', { n: 1 }, Answer)).toEqual({ ok: true });
    expect(server.callsTo('/ok').at(-1)?.body).toEqual({ n: 1 });
  });

  it('retries 503s with backoff and succeeds when the server recovers', async () => {
    server.faults.unavailable = 2;
    const calls = await countCalls('/ok', async () =>
      expect(await client().post('/ok', { n: 1 }, Answer)).toEqual({ ok: true }),
    );
    expect(calls.map((c) => c.status)).toEqual([503, 503, 200]);
  });

  it('gives up on 503 after the bounded retries, naming server, call and fix', async () => {
    server.faults.unavailable = 10;
    const run = client({ retries: 2 }).post('/ok', { n: 1 }, Answer);
    await expect(run).rejects.toThrow(
      `AgentGym test server at ${server.url}: POST /ok was refused with HTTP 503 (unavailable) 3 times`,
    );
    await expect(run).rejects.toThrow(/http\.retries/);
    expect(server.faults.unavailable).toBe(7);
    server.faults.unavailable = 0;
  });

  it('never retries a 4xx or a 500, and says what the status means', async () => {
    const unprocessable = await countCalls('/unprocessable', async () => {
      const error = await client()
        .post('/unprocessable', {}, Answer)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentGymHttpError);
      expect((error as AgentGymHttpError).status).toBe(422);
      expect((error as Error).message).toMatch(/POST \/unprocessable answered HTTP 422.*protocol/);
    });
    expect(unprocessable).toHaveLength(1);
    const crash = await countCalls('/crash', () =>
      expect(client().post('/crash', {}, Answer)).rejects.toThrow(
        /POST \/crash answered HTTP 500: "Internal Server Error"\. The server failed.*log/,
      ),
    );
    expect(crash).toHaveLength(1);
    await expect(client().get('/nowhere', {}, Answer)).rejects.toThrow(
      /GET \/nowhere answered HTTP 404.*root of an AgentGym server/,
    );
  });

  it('times a slow request out without retrying it, naming server and call', async () => {
    server.faults.delayMs = 400;
    try {
      const calls = await countCalls('/ok', () =>
        expect(client({ timeoutMs: 50 }).post('/ok', { n: 1 }, Answer)).rejects.toThrow(
          `AgentGym test server at ${server.url}: POST /ok timed out after 50 ms. The server may be busy or stuck`,
        ),
      );
      expect(calls).toHaveLength(1);
    } finally {
      server.faults.delayMs = 0;
    }
  });

  it('fails clearly after bounded retries when nothing listens', async () => {
    const refused = new JsonHttpClient(refusedUrl, 'AgentGym test server', {
      retries: 2,
      backoffMs: 1,
    });
    const error = await refused.post('/create', undefined, Answer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentGymHttpError);
    expect((error as Error).message).toBe(
      `AgentGym test server at ${refusedUrl}: POST /create could not reach the server (ECONNREFUSED) after 3 attempts. Check that the AgentGym server is running and listening at that URL (AgentGym starts them with e.g. \`webshop --host 0.0.0.0 --port 36001\`).`,
    );
  });

  it('refuses answers that are not JSON or not of the expected shape', async () => {
    await expect(client().get('/html', {}, Answer)).rejects.toBeInstanceOf(AgentGymProtocolError);
    await expect(client().get('/html', {}, Answer)).rejects.toThrow(
      /GET \/html answered with a body that is not JSON: "<h1>a proxy page<\/h1>"/,
    );
    await expect(client().get('/shape', {}, Answer)).rejects.toThrow(
      /GET \/shape answered an unexpected body \(.*ok.*\): "\{"ok":"yes"\}"/,
    );
  });

  it('quotes garbage bytes escaped and clipped, never raw', async () => {
    for (const run of [
      () => client().get('/garbage', {}, Answer),
      () => client().post('/garbage-500', {}, Answer),
    ]) {
      const message = ((await run().catch((e: unknown) => e)) as Error).message;
      expect(message).toMatch(/: "\\x1b\[2J\\x07\\ufffd\\x1b\[2J.*…" \(65,536 characters\)/);
      expect(message).not.toMatch(CONTROL);
      expect(message.length).toBeLessThan(600);
    }
  });

  it('turns a 2xx { error } answer into a server error, not retried', async () => {
    const calls = await countCalls('/caught', async () => {
      const error = await client()
        .post('/caught', {}, Answer)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentGymServerError);
      expect((error as Error).message).toMatch(
        /POST \/caught failed on the server: "The id 7 is not valid\."/,
      );
    });
    expect(calls).toHaveLength(1);
  });
});
