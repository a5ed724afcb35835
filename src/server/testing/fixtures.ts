import type { Hono } from 'hono';
import { envEntry } from '../../envs/registry.ts';
import { createEnvServer, type EnvServer, type EnvServerOptions } from '../app.ts';

/** A server for a registry env (`webshop`, `household`), with test-friendly overrides. */
export function registryServer(
  name: string,
  overrides: Partial<EnvServerOptions> = {},
  envOptions: { maxSteps?: number } = {},
): EnvServer {
  const entry = envEntry(name);
  return createEnvServer({
    name,
    description: entry.description,
    makeEnv: () => entry.make(envOptions),
    tasks: entry.tasks({}),
    warn: () => {},
    ...overrides,
  });
}

/** One in-process request with a JSON body; the answer's status and parsed JSON. */
export async function call(
  app: Hono,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const response = await app.request(path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}
