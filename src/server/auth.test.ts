import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../cli/testing/run-cli-in-process.ts';
import { ConfigError } from '../core/errors.ts';
import type { EnvServer } from './app.ts';
import { checkToken } from './auth.ts';
import { type ListeningServer, listen } from './listen.ts';
import { call, registryServer } from './testing/fixtures.ts';

let server: EnvServer | undefined;
let running: ListeningServer | undefined;
afterEach(async () => {
  await running?.close();
  await server?.close();
  running = undefined;
  server = undefined;
});

const detail = (answer: { json: unknown }) => (answer.json as { detail: string }).detail;

describe('bearer tokens', () => {
  it('any token the server accepts works, punctuation and inner spaces included', async () => {
    for (const token of ['p@ss!word', 'abc=def', 'tok en', 'a.b~c+d/e==', 'x']) {
      const app = registryServer('webshop', { token }).app;
      const right = await call(app, 'POST', '/create', undefined, {
        authorization: `Bearer ${token}`,
      });
      expect({ token, status: right.status }).toEqual({ token, status: 200 });
      const scheme = await call(app, 'POST', '/create', undefined, {
        authorization: `bearer  ${token}`,
      });
      expect(scheme.status).toBe(200);
      const wrong = await call(app, 'POST', '/create', undefined, {
        authorization: `Bearer ${token}x`,
      });
      expect(wrong.status).toBe(401);
      expect(detail(wrong)).toMatch(/wrong token/);
    }
  });

  it('travels over a real socket as clients send it', async () => {
    server = registryServer('webshop', { token: 'p@ss!word' });
    running = await listen(server, { port: 0 });
    const create = (authorization: string) =>
      fetch(`${running?.url}/create`, { method: 'POST', headers: { authorization } });
    expect((await create('Bearer p@ss!word')).status).toBe(200);
    expect((await create('Bearer p@ss!wor')).status).toBe(401);
    const malformed = await create('Basic cDpx');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await malformed.json()) as { detail: string }).detail).toMatch(/malformed/);
  });

  it('refuses an empty token and one no client can send, before serving anything', () => {
    expect(checkToken('p@ss!word')).toBe('p@ss!word');
    expect(() => checkToken('', '--token')).toThrow(
      /--token is empty, which would leave the server open to anyone/,
    );
    for (const token of ['é-unicode', ' padded', 'padded ', 'two\nlines', 'tab\there']) {
      expect(() => checkToken(token, '--token')).toThrow(
        /--token has characters a client cannot send in an HTTP header/,
      );
    }
    expect(() => registryServer('webshop', { token: '' })).toThrow(ConfigError);
    expect(() => registryServer('webshop', { token: 'é-unicode' })).toThrow(ConfigError);
  });

  it("serve --token '' and an empty $DREAMGYM_TOKEN fail at start instead of turning auth off", async () => {
    const serve = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runCliInProcess(['serve', '--env', 'webshop', '--port', '0', ...args], { env });
    const empty = await serve(['--token', '']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--token is empty');
    expect(empty.stdout).not.toContain('Ctrl-C to stop');
    const fromEnv = await serve([], { DREAMGYM_TOKEN: '' });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('$DREAMGYM_TOKEN is empty');
    const unicode = await serve(['--token', 'é-unicode']);
    expect(unicode.code).toBe(1);
    expect(unicode.stderr).toContain('--token has characters a client cannot send');
  });
});
