import { afterEach, describe, expect, it } from 'vitest';
import type { EnvServer } from './app.ts';
import { call, registryServer } from './testing/fixtures.ts';

let server: EnvServer;
afterEach(async () => {
  await server?.close();
});

const detail = (answer: { json: unknown }) => (answer.json as { detail: string }).detail;

describe('env server', () => {
  it('with a token, refuses requests without it (401) but answers health probes', async () => {
    server = registryServer('webshop', { token: 's3cret-token' });
    const missing = await call(server.app, 'POST', '/create');
    expect(missing.status).toBe(401);
    expect(detail(missing)).toMatch(
      /needs a token: send the header "Authorization: Bearer <token>"/,
    );
    const wrong = await call(server.app, 'POST', '/create', undefined, {
      authorization: 'Bearer nope',
    });
    expect(wrong.status).toBe(401);
    expect(detail(wrong)).toMatch(/wrong token/);
    const right = await call(server.app, 'POST', '/create', undefined, {
      authorization: 'Bearer s3cret-token',
    });
    expect(right.status).toBe(200);
    for (const probe of ['/', '/alfworld', '/openenv/health']) {
      expect((await call(server.app, 'GET', probe)).status).toBe(200);
    }
    expect((await call(server.app, 'GET', '/openenv/metadata')).status).toBe(401);
    expect((await call(server.app, 'GET', '/list_envs')).status).toBe(401);
    expect((await call(server.app, 'GET', '/metrics')).status).toBe(401);
    const metrics = await server.app.request('/metrics', {
      headers: { authorization: 'Bearer s3cret-token' },
    });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^dreamgym_sessions_open 1$/m);
  });

  it('caps open sessions with a 503 naming the cap and the flag, on every face', async () => {
    server = registryServer('webshop', { maxSessions: 2 });
    await call(server.app, 'POST', '/create');
    await call(server.app, 'POST', '/alfworld/create');
    const full = await call(server.app, 'POST', '/create');
    expect(full.status).toBe(503);
    expect(detail(full)).toBe(
      'all 2 sessions are in use (--max-sessions 2): close finished sessions, wait for idle ones to be closed after 600 s, or restart the server with a larger --max-sessions.',
    );
    expect((await call(server.app, 'POST', '/alfworld/create')).status).toBe(503);
    expect((await call(server.app, 'POST', '/openenv/reset')).status).toBe(503);
    const [first] = server.sessions.ids();
    await call(server.app, 'POST', '/close', { env_idx: first });
    expect((await call(server.app, 'POST', '/create')).status).toBe(200);
  });

  it('refuses bodies over the limit with a 413', async () => {
    server = registryServer('webshop', { maxBodyBytes: 64 });
    const id = (await call(server.app, 'POST', '/create')).json as number;
    const big = await call(server.app, 'POST', '/step', { env_idx: id, action: 'x'.repeat(100) });
    expect(big.status).toBe(413);
    expect(detail(big)).toMatch(/over 64 bytes/);
  });

  it('caps actions at 2,000 characters by default on every face, answering an invalid step', async () => {
    server = registryServer('webshop');
    const id = (await call(server.app, 'POST', '/create')).json as number;
    await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 0 });
    const long = `search[${'mug '.repeat(2_000)}]`;
    const step = await call(server.app, 'POST', '/step', { env_idx: id, action: long });
    expect(step.status).toBe(200);
    const answer = step.json as { reward: number; done: boolean; info: { invalidAction: string } };
    expect(answer).toMatchObject({ reward: 0, done: false });
    expect(answer.info.invalidAction).toMatch(/over the limit of 2,000 \(--max-action-chars\)/);
    expect(JSON.stringify(answer).length).toBeLessThan(6_000);
    const { session_id } = (await call(server.app, 'POST', '/openenv/reset', {})).json as {
      session_id: number;
    };
    const openenv = await call(server.app, 'POST', '/openenv/step', {
      session_id,
      action: { action: long },
    });
    expect(JSON.stringify(openenv.json)).toMatch(/over the limit of 2,000/);
    expect(() => registryServer('webshop', { maxActionChars: 0 })).toThrow(
      /at least 1 \(--max-action-chars\), got 0/,
    );
  });

  it('an unknown route lists where each protocol lives', async () => {
    server = registryServer('webshop');
    const lost = await call(server.app, 'POST', '/api/step');
    expect(lost.status).toBe(404);
    expect(detail(lost)).toMatch(
      /WebShop protocol is at \/, its ALFWorld protocol at \/alfworld\/, OpenEnv's at \/openenv\//,
    );
  });

  it("an env's own failure is a 500 with its message, and is reported", async () => {
    const warnings: string[] = [];
    server = registryServer('webshop', {
      makeEnv: () => ({
        name: 'broken',
        reset: async () => {
          throw new Error('catalog file is unreadable');
        },
        step: async () => {
          throw new Error('unreachable');
        },
        close: async () => {},
      }),
      warn: (message) => warnings.push(message),
    });
    const id = (await call(server.app, 'POST', '/create')).json as number;
    const reset = await call(server.app, 'POST', '/reset', { env_idx: id, session_id: 0 });
    expect(reset.status).toBe(500);
    expect(detail(reset)).toBe('catalog file is unreadable');
    expect(warnings[0]).toMatch(/^POST \/reset failed: Error: catalog file is unreadable/);
  });
});
