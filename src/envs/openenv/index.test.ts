import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, TaskError } from '../../core/errors.ts';
import type { Env } from '../env.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { isOpenEnvRef, OPENENV_MAX_STEPS, openenvEntry, parseOpenEnvRef } from './index.ts';
import { OpenEnvEnv } from './openenv-env.ts';
import { OPENENV_SPLITS, OpenEnvTaskSource, openenvTask, resetKeywords } from './tasks.ts';

/** The client env inside the entry's wrappers (a TimeLimit around an ObservationLimit). */
const client = (env: Env) => ((env as TimeLimit).env as ObservationLimit).env;

describe('openenv@URL', () => {
  it('recognises the four forms and nothing else', () => {
    for (const ref of ['openenv@http://h:1', 'openenv:x@http://h:1', 'openenv+http@http://h:1']) {
      expect(isOpenEnvRef(ref)).toBe(true);
    }
    expect(isOpenEnvRef('openenv+http:x@http://h:1')).toBe(true);
    for (const name of ['openenv', 'webshop', 'agentgym:webshop@http://h:1', 'openenvy@x']) {
      expect(isOpenEnvRef(name)).toBe(false);
    }
  });

  it('parses the family, the server root and the transport', () => {
    expect(parseOpenEnvRef('openenv@http://127.0.0.1:8000/')).toEqual({
      family: 'openenv',
      url: 'http://127.0.0.1:8000',
      transport: 'websocket',
    });
    expect(parseOpenEnvRef('openenv:textarena@ws://envs.example.org/wordle')).toEqual({
      family: 'openenv:textarena',
      url: 'http://envs.example.org/wordle',
      transport: 'websocket',
    });
    expect(parseOpenEnvRef('openenv+http:coding@wss://h/x//')).toEqual({
      family: 'openenv:coding',
      url: 'https://h/x',
      transport: 'http',
    });
  });

  it('says what to write for a wrong name or URL', () => {
    expect(() => parseOpenEnvRef('openenv:x')).toThrow(
      '"openenv:x" names no OpenEnv server; write openenv@http://HOST:PORT or openenv:NAME@http://HOST:PORT (openenv+http@… for the HTTP transport).',
    );
    expect(() => parseOpenEnvRef('openenv:a b@http://h:1')).toThrow(/"a b" .* is not an env name/);
    expect(() => parseOpenEnvRef('openenv@127.0.0.1:8000')).toThrow(ConfigError);
    expect(() => parseOpenEnvRef('openenv@ftp://h/')).toThrow(/not an http\(s\) or ws\(s\) URL/);
  });

  it('makes remote envs inside a step limit, contacting nothing', async () => {
    // Port 9 (discard) on loopback: nothing listens, and nothing may be asked before a reset.
    const entry = openenvEntry('openenv:guess@http://127.0.0.1:9');
    expect(entry).toMatchObject({
      name: 'openenv:guess',
      remote: true,
      maxSteps: OPENENV_MAX_STEPS,
    });
    expect(entry.description).toContain('http://127.0.0.1:9 (WebSocket sessions)');
    const env = entry.make({ split: 'test' }) as TimeLimit;
    expect(env).toBeInstanceOf(TimeLimit);
    expect(env.maxSteps).toBe(OPENENV_MAX_STEPS);
    expect(env.env).toBeInstanceOf(ObservationLimit);
    expect((env.env as ObservationLimit).maxChars).toBe(20_000);
    expect((entry.make({ maxObservationChars: 500 }) as TimeLimit).env).toMatchObject({
      maxChars: 500,
    });
    expect(client(env)).toBeInstanceOf(OpenEnvEnv);
    expect(env.name).toBe('openenv:guess');
    expect((client(env) as OpenEnvEnv).transportKind).toBe('websocket');
    expect((entry.make({ maxSteps: 7 }) as TimeLimit).maxSteps).toBe(7);
    expect(client(openenvEntry('openenv+http@http://h:1').make({}))).toMatchObject({
      transportKind: 'http',
      name: 'openenv',
    });
    await env.close();
    expect(
      entry
        .tasks({})
        .tasks('test', 2)
        .map((t) => t.id),
    ).toEqual(['openenv:guess/seed-1000', 'openenv:guess/seed-1001']);
  });
});

describe('openenv@URL#timeout=SECONDS', () => {
  it('sets the time to wait for one answer, 30 s by default, and nothing else', () => {
    expect(parseOpenEnvRef('openenv:x@http://h:1/openenv/#timeout=2.5')).toEqual({
      family: 'openenv:x',
      url: 'http://h:1/openenv',
      transport: 'websocket',
      timeoutMs: 2_500,
    });
    const limit = (ref: string) =>
      (client(openenvEntry(ref).make({})) as OpenEnvEnv).options.messageTimeoutMs;
    expect(limit('openenv@http://h:1#timeout=120')).toBe(120_000);
    expect(limit('openenv+http@http://h:1')).toBe(30_000);
    expect(() => parseOpenEnvRef('openenv@http://h:1#timeout=0')).toThrow(
      '"#timeout=0" in "openenv@http://h:1#timeout=0": the timeout is a number of seconds above 0, e.g. #timeout=120.',
    );
    expect(() => parseOpenEnvRef('openenv@http://h:1#retries=3')).toThrow(
      '"#retries=3" in "openenv@http://h:1#retries=3" is no client setting; the one there is #timeout=SECONDS (the time to wait for one answer, default 30).',
    );
  });

  it('gives up on a server that never answers within it, naming the setting', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const env = openenvEntry(`openenv+http@http://127.0.0.1:${port}#timeout=0.2`).make({});
    const started = Date.now();
    try {
      await expect(env.reset()).rejects.toThrow(
        `OpenEnv server at http://127.0.0.1:${port}: GET /schema got no answer within 200 ms. The server may be busy or stuck: check its log, or allow more time with #timeout=SECONDS after the server's URL (openenv@URL#timeout=120; messageTimeoutMs in code).`,
      );
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await env.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('OpenEnv tasks', () => {
  it('are seeds, train and test apart; a draw is fixed by its seed', () => {
    const source = new OpenEnvTaskSource('openenv');
    expect(source.tasks('train')).toHaveLength(1000);
    expect(source.tasks('test')).toHaveLength(200);
    expect(source.tasks('train', 1)[0]).toEqual({
      id: 'openenv/seed-0',
      env: 'openenv',
      instruction: '',
      spec: { seed: 0 },
      origin: 'seed',
    });
    const draws = Array.from({ length: 50 }, (_, seed) => source.draw('test', seed).spec?.seed);
    for (const seed of draws) {
      expect(seed).toBeGreaterThanOrEqual(OPENENV_SPLITS.test.start);
      expect(seed).toBeLessThan(OPENENV_SPLITS.test.end);
    }
    expect(new Set(draws).size).toBeGreaterThan(40);
    expect(source.draw('train', 4)).toEqual(source.draw('train', 4));
    expect(() => source.tasks('test', 201)).toThrow(/has 200 tasks \(seeds 1000–1199\)/);
    expect(() => new OpenEnvTaskSource('openenv', { test: { start: 5, end: 5 } })).toThrow(
      ConfigError,
    );
  });

  it("send the spec as the reset keywords, and refuse another family's or a spec-less task", () => {
    const task = { ...openenvTask('openenv:x', 2), spec: { seed: 2, difficulty: 'hard' } };
    expect(resetKeywords(task, 'openenv:x')).toEqual({ seed: 2, difficulty: 'hard' });
    expect(() => resetKeywords(task, 'openenv')).toThrow(
      'task openenv:x/seed-2 is for env "openenv:x", not "openenv".',
    );
    const generated = {
      id: 'g1',
      env: 'openenv',
      instruction: 'do it',
      origin: 'generated' as const,
    };
    expect(() => resetKeywords(generated, 'openenv')).toThrow(TaskError);
    expect(() => resetKeywords(generated, 'openenv')).toThrow(/can only run in a synthetic env/);
  });
});
